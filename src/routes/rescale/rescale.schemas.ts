import { z } from "@hono/zod-openapi";

export const RescaleResponseSchema = z
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
        fair: z
          .object({
            level: z.number().nullable().openapi({ description: "The fair policy's app level S after this rescale; null: unchanged" }),
            raw_level: z.number().nullable().openapi({ description: "S before the anchor's clamp" }),
            anchor: z.number().nullable().openapi({ description: "S_ref after this rescale; null: not anchored" }),
            anchored_now: z.boolean().openapi({ description: "This rescale took the anchor (and sealed the mature versions)" }),
            held_at_anchor_limit: z.boolean().openapi({ description: "The alarm: S was held at 3% from S_ref" }),
          })
          .openapi({ description: "The fair policy's rescale (docs/fair-credit.md#version-3-against-farms), done for every app" }),
      }),
    ),
  })
  .openapi("RescaleResponse");
