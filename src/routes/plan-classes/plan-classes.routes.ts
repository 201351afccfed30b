import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { ScaleTableSchema } from "../../snapshots/plan-classes.body";
import { QuerySchema } from "./plan-classes.schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/plan-classes",
  tags: ["Cross-project"],
  summary: "The plan-class scale table: average pfc_scale per plan class and processor type",
  description:
    "Computed by a daily job from every project of this deployment and every contributor's push: per plan " +
    "class and processor type, the average pfc_scale weighted by each app version's recent average credit " +
    "decayed to the run, over apps with both CPU and GPU versions of at least 100 samples. Reports not " +
    "refreshed for 30 days drop out.",
  request: { query: QuerySchema },
  responses: {
    200: {
      description: "The table (JSON, or XML `<scale_factors>` with ?format=xml)",
      content: {
        "application/json": { schema: ScaleTableSchema },
        "application/xml": { schema: z.string() },
      },
    },
    ...errorResponses(400, 404),
  },
});
