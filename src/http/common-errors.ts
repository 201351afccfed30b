/**
 * Errors that come from what a route is, not from its handler, added to each route's OpenAPI
 * declaration once instead of in each (test/api/declared-statuses.test.ts checks the result):
 * - 500 `internal` and 503 `unavailable` everywhere (app.ts's onError);
 * - 429 `rate_limited` on every route that takes a token;
 * - 400 `validation_failed` on every route with path or query parameters or a body (the
 *   schema hook), and 413 `too_large` and 415 on every route with a body (the body limit,
 *   the JSON validator).
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { type ErrorStatus, errorResponses } from "./errors";

export function declareCommonErrors(app: OpenAPIHono<AppEnv>): void {
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type !== "route") continue;
    const { route } = def;
    const statuses: ErrorStatus[] = [500, 503];
    if (route.security?.length) statuses.push(429);
    if (route.request?.params || route.request?.query || route.request?.body) statuses.push(400);
    if (route.request?.body) statuses.push(413, 415);
    route.responses = { ...errorResponses(...statuses), ...route.responses };
  }
}
