/**
 * GET /v1/plan-classes: the cross-project plan-class scale table (public). The latest comes
 * from KV (written by the aggregation job), a pinned version from D1.
 */
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { loadPublishedTable } from "../../db/plan-class-registry";
import { ApiError, errorResponses } from "../../http/errors";
import { PLAN_CLASSES_KV_KEY } from "../../services/plan-class-scales";
import { type ScaleTableBody, ScaleTableSchema, scaleTableBody, scaleTableXml } from "../../snapshots/plan-classes.body";

const QuerySchema = z.object({
  format: z.enum(["json", "xml"]).optional().openapi({ description: "xml: the shape of BOINC's gpu_ratios.php" }),
  version: z.coerce
    .number()
    .positive()
    .optional()
    .openapi({ description: "A published version (its `version`); default the latest" }),
});

const route = createRoute({
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

/**
 * The latest table: KV (the job's copy), or D1 when the key is missing (then KV is filled).
 * The /central page reads it here too.
 */
export async function latestScaleTable(c: Context<AppEnv>): Promise<ScaleTableBody> {
  const cached = await c.env.KV.get<ScaleTableBody>(PLAN_CLASSES_KV_KEY, "json");
  if (cached) return cached;
  const table = await loadPublishedTable(c.var.registry);
  const body = scaleTableBody(table);
  if (table) c.executionCtx.waitUntil(c.env.KV.put(PLAN_CLASSES_KV_KEY, JSON.stringify(body)));
  return body;
}

export function mountPlanClasses(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const { format, version } = c.req.valid("query");
    let body: ScaleTableBody;
    if (version === undefined) body = await latestScaleTable(c);
    else {
      const table = await loadPublishedTable(c.var.registry, version);
      if (!table) throw new ApiError(404, "not_found", `no plan-class table version ${version}`);
      body = scaleTableBody(table);
    }
    if (format === "xml") return c.body(scaleTableXml(body), 200, { "Content-Type": "application/xml; charset=utf-8" });
    return c.json(body, 200);
  });
}
