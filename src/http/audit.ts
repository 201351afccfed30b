/**
 * The audit log: every write that succeeded (a PUT, POST or DELETE answered 2xx by a route
 * that accepted a token) gets a row: who, what, when, request id. It is written right after
 * the write, not in its batch: the write batches belong to the routes, and a failed audit
 * insert must not turn a committed write into an error the client would retry. A rejected
 * request wrote nothing and is not audited. The exception is a route whose row carries what
 * the write must not exist without (the reason of a fair re-base): it puts `auditRow` in its
 * own batch, and this middleware writes nothing more.
 */
import type { SQL } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import { auditLog } from "../db/schema";
import type { AppEnv } from "../env";
import { serverNow } from "../clock";
import { errorText, log } from "../log";

const WRITES = new Set(["PUT", "POST", "DELETE", "PATCH"]);

/** The row of a request that succeeds with `status`. */
function rowOf(c: Context<AppEnv>, actor: string, status: number, at: number, reason: string | null) {
  return {
    projectId: c.var.project?.id ?? null,
    at,
    actor,
    method: c.req.method,
    route: routePath(c, -1),
    target: c.req.path.slice(0, 500),
    status,
    requestId: c.var.requestId,
    reason,
  };
}

/**
 * The audit row of this request as a statement for the route's own write batch (in the
 * request's database), for a write that must not be stored without it: the row and the write
 * commit together or not at all. `status` is the one the route answers when the batch commits.
 */
export function auditRow(c: Context<AppEnv>, status: number, at: number, reason: string | null): SQL {
  const actor = c.var.actor;
  if (actor === undefined) throw new Error("auditRow: the request has no actor (a route that takes no token)");
  c.set("audited", true);
  return c.var.db
    .insert(auditLog)
    .values(rowOf(c, actor, status, at, reason))
    .getSQL();
}

export const auditWrites = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const actor = c.var.actor;
  if (!WRITES.has(c.req.method) || c.res.status >= 300 || actor === undefined || c.var.audited) return;
  try {
    await c.var.db.insert(auditLog).values(rowOf(c, actor, c.res.status, serverNow(), null));
  } catch (e) {
    log("error", { event: "audit_not_written", request_id: c.var.requestId, error: errorText(e) });
  }
});
