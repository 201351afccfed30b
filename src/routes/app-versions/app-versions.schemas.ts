import { z } from "@hono/zod-openapi";
import { TEXT_LIMITS, storedText } from "../common";

export const PutAppVersionSchema = z
  .strictObject({
    app: storedText(TEXT_LIMITS.boincName).min(1),
    platform: storedText(TEXT_LIMITS.boincName).min(1).openapi({ example: "x86_64-pc-linux-gnu" }),
    plan_class: storedText(TEXT_LIMITS.boincName).openapi({ example: "cuda_fermi", description: "'' for a plain CPU version" }),
    version_num: z.number().int().nonnegative(),
    deprecated: z.boolean().optional(),
  })
  .openapi("PutAppVersion");
export type PutAppVersion = z.infer<typeof PutAppVersionSchema>;

export const AppVersionSchema = z
  .object({
    id: z.number().int(),
    app: z.string(),
    platform: z.string(),
    plan_class: z.string(),
    version_num: z.number().int(),
    deprecated: z.boolean(),
    pfc_n: z.number(),
    pfc_avg: z.number(),
    pfc_scale: z.number(),
    expavg_credit: z.number(),
    expavg_time: z.number(),
    fair_n: z.number().int().openapi({ description: "Samples in the fair policy's version level" }),
    fair_level: z.number().nullable().openapi({ description: "The fair policy's version level L_v (typical PFC/est of its hosts)" }),
    fair_scale: z.number().nullable().openapi({ description: "The fair policy's version scale (null: the default seed, 1 CPU / 0.1 GPU)" }),
    fair_w_v: z.number().openapi({
      description:
        "The fair policy's paid share of a job's z now: 0 where the version's z band is that of noise around rsc_fpops_est, 1 where est hides job sizes",
    }),
    fair_high_z_share: z.number().openapi({
      description:
        "The fair policy's share of this version's results with z above its 98% quantile (EMA, weight 0.002); the quantile gate derives from it",
    }),
    fair_own_scale: z.boolean().openapi({
      description: "A rescale found the version mature and gave it S / L_v: its expected credit is est × S (fair policy version 3)",
    }),
    fair_sealed: z.boolean().openapi({
      description:
        "Sealed at its app's anchor: only its founder host rows (made before the seal) move its level, z quantiles and high-z share",
    }),
  })
  .openapi("AppVersion");
