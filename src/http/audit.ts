/**
 * The audit log: every write that succeeded (a PUT, POST or DELETE answered 2xx by a route
 * that accepted a token) gets a row: who, what, when, request id. It is written right after
 * the write, not in its batch: the write batches belong to the routes, and a failed audit
 * insert must not turn a committed write into an error the client would retry. A rejected
 * request wrote nothing and is not audited.
 */
import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import { auditLog } from "../db/schema";
import type { AppEnv } from "../env";
import { serverNow } from "../clock";
import { errorText, log } from "../log";

const WRITES = new Set(["PUT", "POST", "DELETE", "PATCH"]);

export const auditWrites = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const actor = c.var.actor;
  if (!WRITES.has(c.req.method) || c.res.status >= 300 || actor === undefined) return;
  try {
    await c.var.db.insert(auditLog).values({
      projectId: c.var.project?.id ?? null,
      at: serverNow(),
      actor,
      method: c.req.method,
      route: routePath(c, -1),
      target: c.req.path.slice(0, 500),
      status: c.res.status,
      requestId: c.var.requestId,
      reason: c.var.auditReason ?? null,
    });
  } catch (e) {
    log("error", { event: "audit_not_written", request_id: c.var.requestId, error: errorText(e) });
  }
});
