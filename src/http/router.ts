/**
 * One router per group of routes (hono-open-api-starter's `createRouter`): each `*.index.ts`
 * chains its routes on one, `createRouter().openapi(route, handler)…`, and src/app.ts mounts
 * them with `app.route("/", router)`, so that the app's type keeps every route (`AppType`).
 * Each router validates with the same hook, the API's error contract for a request that fails
 * its route's schemas (docs/api.md#errors).
 */
import { OpenAPIHono, type OpenAPIHonoOptions } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { type ErrorBody, boundedError, issuesOf } from "./errors";

/** A request that fails its route's schemas: 400 `validation_failed`, or 413 `too_large` for an array over its limit. */
export const defaultHook: NonNullable<OpenAPIHonoOptions<AppEnv>["defaultHook"]> = (result, c) => {
  if (result.success) return;
  const issues = issuesOf(result.error);
  // Too many items in any array (workunits, results, error results, pushed app versions,
  // RPC projects) is a size limit, not a shape error.
  const tooMany = result.error.issues.find((i) => i.code === "too_big" && i.origin === "array");
  if (tooMany) {
    return c.json<ErrorBody>(boundedError({ error: { code: "too_large", message: tooMany.message, issues } }), 413);
  }
  const where = result.target === "json" ? "body" : result.target;
  return c.json<ErrorBody>(
    boundedError({ error: { code: "validation_failed", message: `the request ${where} is invalid; nothing was written`, issues } }),
    400,
  );
};

export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({ defaultHook });
}
