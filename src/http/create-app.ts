/**
 * The app before any route (hono-open-api-starter's `createApp`): the middleware every request
 * goes through, and the answers for a path the API does not have and for an error a handler
 * throws (the error contract, docs/api.md#errors). src/app.ts mounts the routes on it.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { database } from "../db/client";
import type { AppEnv } from "../env";
import { auditWrites } from "./audit";
import { isDatabaseFailure } from "./db-failure";
import { ApiError, type ErrorBody, boundedError } from "./errors";
import { requestEnv } from "./request-env";
import { requestId } from "./request-id";
import { requestLog } from "./request-log";
import { createRouter } from "./router";

export const MAX_BODY_BYTES = 5 * 1024 * 1024;

export function createBaseApp(): OpenAPIHono<AppEnv> {
  // The validation hook (a request failing its route's schemas) is router.ts's, shared by every router.
  const app = createRouter();

  app.use("*", requestId);
  // One JSON log line per request; then the variables (parsed once) and the metered D1 bindings.
  app.use("*", requestLog, requestEnv);
  app.use("*", async (c, next) => {
    const registry = database(c.env.DB);
    c.set("registry", registry);
    // Until a project route swaps in its project's database (auth.ts).
    c.set("db", registry);
    await next();
  });
  app.use("/v1/*", auditWrites);
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json<ErrorBody>({ error: { code: "too_large", message: `the body is over ${MAX_BODY_BYTES} bytes` } }, 413),
    }),
  );

  const methodsOf = routeMethods(app);
  app.notFound((c) => {
    // A path the API has, asked with another method: 405 naming the methods it has (docs/api.md#errors).
    const allowed = methodsOf(c.req.path);
    if (allowed.length > 0) {
      const message = `${c.req.method} is not a method of ${c.req.path}; it has ${allowed.join(", ")}`;
      return c.json<ErrorBody>(boundedError({ error: { code: "method_not_allowed", message } }), 405, { Allow: allowed.join(", ") });
    }
    return c.json<ErrorBody>(boundedError({ error: { code: "not_found", message: `no route ${c.req.method} ${c.req.path}` } }), 404);
  });
  app.onError((err, c) => {
    if (err instanceof ApiError) return c.json(err.body(), err.status, err.headers);
    if (err instanceof HTTPException && err.status === 415) {
      const message = "send the body as JSON (Content-Type: application/json)";
      return c.json<ErrorBody>({ error: { code: "unsupported_media_type", message } }, 415);
    }
    if (err instanceof HTTPException && err.status < 500) {
      return c.json<ErrorBody>(boundedError({ error: { code: "bad_request", message: err.message || "bad request" } }), err.status);
    }
    // The request's log line (request-log.ts) carries the error, with the id the client sees.
    if (isDatabaseFailure(err)) {
      const message = "the database is unavailable; nothing was written; retry";
      return c.json<ErrorBody>({ error: { code: "unavailable", message } }, 503, { "Retry-After": "1" });
    }
    // Not retryable.
    const message = `internal error; nothing was written; retrying will not help (request id ${c.var.requestId})`;
    return c.json<ErrorBody>({ error: { code: "internal", message } }, 500);
  });
  return app;
}

/** The methods the OpenAPI document gives a concrete path (its templates' parameters match one segment each); read once routes are mounted. */
function routeMethods(app: OpenAPIHono<AppEnv>): (path: string) => string[] {
  let routes: { method: string; pattern: RegExp }[] | null = null;
  return (path) => {
    routes ??= app.openAPIRegistry.definitions.flatMap((d) =>
      d.type === "route"
        ? [{ method: d.route.method.toUpperCase(), pattern: new RegExp(`^${d.route.path.replace(/\{[^}]+\}/g, "[^/]+")}$`) }]
        : [],
    );
    return [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
  };
}
