import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { NowSchema, SlugParams } from "../common";
import { RescaleResponseSchema } from "./rescale.schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/projects/{slug}/rescale",
  tags: ["Validation"],
  summary: "Recompute app-version scales and min_avg_pfc now (cron does it every 10 minutes)",
  ...access("projectToken"),
  request: {
    params: SlugParams,
    body: { required: false, content: { "application/json": { schema: z.strictObject({ now: NowSchema }) } } },
  },
  responses: {
    200: { description: "What changed, per app", content: { "application/json": { schema: RescaleResponseSchema } } },
    ...errorResponses(400, 401, 403, 422),
  },
});
