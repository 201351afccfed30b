/**
 * Errors every route can give, added to each route's OpenAPI declaration once instead of in
 * each: 503 `unavailable` (D1 failed; nothing was written) everywhere, and 429 `rate_limited`
 * on every route that takes a token.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { errorResponses } from "./errors";

export function declareCommonErrors(app: OpenAPIHono<AppEnv>): void {
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type !== "route") continue;
    const { route } = def;
    const common = errorResponses(...(route.security?.length ? ([429, 503] as const) : ([503] as const)));
    route.responses = { ...common, ...route.responses };
  }
}
