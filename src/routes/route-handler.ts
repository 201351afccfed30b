/**
 * A handler typed by its route (hono-open-api-starter's `AppRouteHandler<typeof route>`): it may
 * return only the responses the route declares, each body in its schema's type, and a declared
 * response without content (a public read's 304) as `c.body(null, status)`.
 * @hono/zod-openapi's own handler type accepts any `Response` as soon as one of the route's
 * responses has no content, which let a read's body drift from its documented shape unchecked.
 */
import type { RouteConfig, RouteConfigToTypedResponse, RouteHandler } from "@hono/zod-openapi";
import type { Next, TypedResponse } from "hono";
import type { StatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../env";

/** The statuses the route declares without content (a key may be 304 or "304"). */
type EmptyStatus<R extends RouteConfig> = {
  [S in keyof R["responses"]]: R["responses"][S] extends { content: object } ? never : S extends `${infer N extends StatusCode}` ? N : S;
}[keyof R["responses"]] &
  StatusCode;

type RouteResponse<R extends RouteConfig> = Response &
  (RouteConfigToTypedResponse<R> | ([EmptyStatus<R>] extends [never] ? never : TypedResponse<null, EmptyStatus<R>, "body">));

export type AppRouteHandler<R extends RouteConfig> = (
  c: Parameters<RouteHandler<R, AppEnv>>[0],
  next: Next,
) => RouteResponse<R> | Promise<RouteResponse<R>>;
