/**
 * Checked by `npm run typecheck` (tsc over test/), not run: a handler typed by its route
 * (src/routes/route-handler.ts) cannot answer a body off the route's schema, a status it does
 * not declare, or an untyped Response, even on a route with a 304 (where @hono/zod-openapi's own
 * handler type accepts any Response). Each @ts-expect-error fails the typecheck if the line compiles.
 */
import { putAppRoute } from "../../src/routes/apps/apps.routes";
import { listRoute, oneRoute } from "../../src/routes/projects/project-reads.routes";
import type { AppRouteHandler } from "../../src/routes/route-handler";

const body = { projects: [], as_of: 1, snapshot_time: 1 };

export const documented: AppRouteHandler<typeof listRoute> = (c) => c.json(body, 200);
export const notModified: AppRouteHandler<typeof oneRoute> = (c) => c.body(null, 304);

// @ts-expect-error as_of is a number
export const mistyped: AppRouteHandler<typeof listRoute> = (c) => c.json({ ...body, as_of: "now" }, 200);
// @ts-expect-error snapshot_time is required
export const missing: AppRouteHandler<typeof listRoute> = (c) => c.json({ projects: [], as_of: 1 }, 200);
// @ts-expect-error the route declares no 201
export const undeclared: AppRouteHandler<typeof listRoute> = (c) => c.json(body, 201);
// @ts-expect-error an untyped Response
export const untyped: AppRouteHandler<typeof listRoute> = () => new Response("{}");
// @ts-expect-error the route declares no 204
export const noContent: AppRouteHandler<typeof oneRoute> = (c) => c.body(null, 204);
// @ts-expect-error a PUT of an app declares no 304
export const no304: AppRouteHandler<typeof putAppRoute> = (c) => c.body(null, 304);
