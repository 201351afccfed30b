import { z } from "@hono/zod-openapi";

const FairnessHostSchema = z.object({
  host_id: z.number().int(),
  results: z.number().int().openapi({ description: "Valid results credited in the window" }),
  boinc_credit: z.number().openapi({ description: "What BOINC's rules pay these results" }),
  fair_credit: z.number().openapi({ description: "What the fair policy pays them" }),
  ratio: z.number().nullable().openapi({ description: "boinc_credit / fair_credit; null when fair_credit is 0" }),
  outliers: z.number().int().openapi({ description: "Claims the fair policy judged outlying or insane" }),
  error_rate: z
    .number()
    .openapi({ description: "The host's fair error rate (highest over the app's versions); above 0.1 is bad standing" }),
  held_out_by_gate: z
    .boolean()
    .openapi({ description: "The gate holds this host's z out of the quantiles of one of the app's versions now" }),
});

const HeldOutSchema = z.object({
  host_id: z.number().int(),
  app_version_id: z.number().int(),
  high_z_share: z
    .number()
    .openapi({ description: "The host's share of results with z above the version's 98% quantile (EMA, weight 0.02)" }),
  gate: z.number().openapi({
    description:
      "The most that share may be and still feed the version's z quantiles: max(3 × the version's share, the version's share + 0.10)",
  }),
});

export const FairnessReportSchema = z
  .object({
    app: z.string(),
    credit_policy: z.enum(["boinc", "fair"]),
    since: z.number().openapi({ description: "Start of the window (now − 30 days)" }),
    hosts: z.array(FairnessHostSchema),
    held_out_by_gate: z.array(HeldOutSchema).openapi({
      description:
        "Host × versions whose z the gate leaves out of the version's quantiles now, furthest above the gate first (at most `limit`)",
    }),
  })
  .openapi("FairnessReport");
