/**
 * One JSON line per request (docs/operations.md#logs): who asked what (request id, method,
 * route pattern, project), how it ended (status, error code, and for a 5xx the exception), how
 * long it took and what it cost D1 (rows read and written, summed from D1's own meta; no query
 * is added). Never a token, a header or a body. Its cost: one JSON.stringify per request, and
 * for an error answer a clone of its (small, bounded) body to read `error.code`.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { matchedRoutes } from "hono/route";
import type { AppEnv, ProjectRef } from "../env";
import { errorText, log } from "../log";
import { ApiError } from "./errors";

/** The pattern of the route that answered (hono's, as the audit log records it); none for a 404 or 405. */
function routeOf(c: Context<AppEnv>): string | undefined {
  // Middleware is registered for every method ("ALL"); a route's handler for its own.
  return matchedRoutes(c)
    .filter((r) => r.method !== "ALL")
    .at(-1)?.path;
}

/** `error.code` of an error answer in the error shape (src/http/errors.ts). */
async function errorCode(res: Response): Promise<string | undefined> {
  if (!res.headers.get("Content-Type")?.includes("application/json")) return undefined;
  try {
    const body = (await res.clone().json()) as { error?: { code?: unknown } } | null;
    return typeof body?.error?.code === "string" ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}

export const requestLog = createMiddleware<AppEnv>(async (c, next) => {
  const started = Date.now();
  await next();
  const status = c.res.status;
  const usage = c.var.d1Usage;
  log(status >= 500 ? "error" : "info", {
    event: "request",
    request_id: c.var.requestId,
    method: c.req.method,
    route: routeOf(c),
    project: (c.get("project") as ProjectRef | undefined)?.slug,
    status,
    // Workers' clock moves only at I/O: CPU time after the request's last I/O is not in it.
    duration_ms: Date.now() - started,
    rows_read: usage?.rowsRead ?? 0,
    rows_written: usage?.rowsWritten ?? 0,
    d1_queries: usage?.queries ?? 0,
    d1_queries_without_meta: usage?.queriesWithoutMeta ?? 0,
    error_code: status >= 400 ? await errorCode(c.res) : undefined,
    // An unexpected exception (app.ts's onError answered 500 internal or 503 unavailable): the
    // log keeps what the client is not told. An ApiError's message is the answer's own.
    error: status >= 500 && c.error && !(c.error instanceof ApiError) ? errorText(c.error, true) : undefined,
  });
});
