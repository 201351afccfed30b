import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { rescaleProject } from "../../services/rescale";
import type { AppEnv } from "../../env";
import { errorResponses } from "../../http/errors";
import { NowSchema, SlugParams, resolveNow } from "../common";

const RescaleResponseSchema = z
  .object({
    now: z.number(),
    apps: z.array(
      z.object({
        name: z.string(),
        basis: z.enum(["min_of_cpu_and_gpu", "cpu_average", "gpu_only"]).nullable().openapi({
          description: "How min_avg_pfc was chosen; null when too few versions have enough samples (nothing changed)",
        }),
        min_avg_pfc: z.number(),
        scaled_versions: z.array(z.object({ id: z.number().int(), pfc_scale: z.number() })),
        cross_project: z
          .object({
            factor: z.number().openapi({ description: "Used instead of BOINC's 0.1: min_avg_pfc = factor × the GPU average" }),
            registry_version: z.number().nullable().openapi({ description: "The plan-class table version read; null: none published yet" }),
            plan_classes: z.array(
              z.object({
                plan_class: z.string(),
                factor: z.number(),
                source: z.enum(["plan_class", "proc_type", "boinc_default"]),
              }),
            ),
          })
          .optional()
          .openapi({ description: "Only for a GPU-only app with gpu_only_scale 'cross-project'" }),
      }),
    ),
  })
  .openapi("RescaleResponse");

const route = createRoute({
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

export function mountRescale(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const body = c.req.header("content-type")?.includes("json") ? c.req.valid("json") : {};
    const now = resolveNow(body.now);
    const report = await rescaleProject(c.var.db, c.var.registry, c.var.project.id);
    return c.json(
      {
        now,
        apps: report.map((a) => ({
          name: a.app,
          basis: a.basis,
          min_avg_pfc: a.minAvgPfc,
          scaled_versions: a.scaledVersions.map((v) => ({ id: v.id, pfc_scale: v.pfcScale })),
          ...(a.crossProject
            ? {
                cross_project: {
                  factor: a.crossProject.factor,
                  registry_version: a.crossProject.registryVersion,
                  plan_classes: a.crossProject.planClasses.map((p) => ({
                    plan_class: p.planClass,
                    factor: p.factor,
                    source: p.source,
                  })),
                },
              }
            : {}),
        })),
      },
      200,
    );
  });
}
