import { z } from "@hono/zod-openapi";

export const HostAppVersionSchema = z
  .object({
    host_id: z.number().int(),
    app_version_id: z.number().int().openapi({ description: "Negative (-2 … -6) for an anonymous platform" }),
    app: z.string(),
    pfc_n: z.number(),
    pfc_avg: z.number(),
    et_n: z.number(),
    et_avg: z.number(),
    et_var: z.number(),
    turnaround_n: z.number(),
    turnaround_avg: z.number(),
    turnaround_var: z.number(),
    consecutive_valid: z.number().int(),
    fair_n: z.number().int().openapi({ description: "Fair policy: samples while young (the host is normalised from 10)" }),
    fair_typical: z
      .number()
      .nullable()
      .openapi({ description: "Fair policy: the host's typical PFC/est (running median); null while young" }),
    fair_run: z.number().int().openapi({ description: "Fair policy: outliers in a row (+ high, - low); 5 re-learns the host" }),
    fair_error_rate: z
      .number()
      .openapi({ description: "Fair policy: EMA of client errors and timeouts; above 0.1 the host is in bad standing" }),
    fair_high_z_share: z.number().nullable().openapi({
      description:
        "Fair policy: the host's share of results with z above its version's 98% quantile (EMA, weight 0.02); above the version's gate its z feeds no quantile. Null until its first established result",
    }),
    fair_founder: z.boolean().openapi({
      description:
        "Fair policy version 3: the row existed before its version was sealed, so it may move the version's statistics; set when the row is made",
    }),
  })
  .openapi("HostAppVersion");
