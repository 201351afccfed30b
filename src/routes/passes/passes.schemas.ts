import { z } from "@hono/zod-openapi";
import { MAX_ANONYMOUS_PLATFORM_ID, MIN_ANONYMOUS_PLATFORM_ID } from "../../credit/constants";
import { FAIR_RULES } from "../../credit/fair-claim";
import { CreditSchema, DurationSchema, IdSchema, LIMITS, NowSchema, OptionalIdSchema, TimeSchema, GrantedAtSchema } from "../common";

export const MAX_WORKUNITS_PER_PASS = 1000;
/** BOINC's replication is a handful of results per workunit; this bounds a hostile body's work. */
const MAX_RESULTS_PER_WORKUNIT = 1000;
/**
 * Results in one pass, or in a pass batch in all. The pass is written as one D1 transaction that
 * holds its whole database (every project in it) while it runs; about 5,000 results write in
 * well under a second locally (BENCHMARKS.md, "The largest pass"), where the 5 MiB body alone
 * would admit about 24,000. BOINC replicates a workunit a handful of times, so a real pass of
 * 1,000 workunits stays below it.
 */
export const MAX_RESULTS_PER_PASS = 5000;

/** A 413 `too_large` issue (src/app.ts maps an array's too_big to it) when `results` is over MAX_RESULTS_PER_PASS. */
export function resultsOverLimit(
  results: number,
  what: string,
): { code: "too_big"; origin: "array"; maximum: number; inclusive: true; message: string } | null {
  if (results <= MAX_RESULTS_PER_PASS) return null;
  return {
    code: "too_big",
    origin: "array",
    maximum: MAX_RESULTS_PER_PASS,
    inclusive: true,
    message: `${results} results in ${what}; at most ${MAX_RESULTS_PER_PASS} (split them over more requests)`,
  };
}

/** Devices one job can use: well above any host's CPU count, so no real job is refused. */
const MAX_DEVICES_PER_JOB = 100_000;

export const AppVersionRefSchema = z
  .number()
  .int()
  .refine((id) => id > 0 || (id >= MIN_ANONYMOUS_PLATFORM_ID && id <= MAX_ANONYMOUS_PLATFORM_ID), {
    message: "an app version id, or -2 … -6 for an anonymous platform (CPU, NVIDIA, AMD, Intel GPU, Apple GPU)",
  })
  .openapi({ description: "An app version id; -2 … -6 is an anonymous-platform result", example: 12 });

export const ResultSchema = z
  .strictObject({
    id: IdSchema,
    host_id: IdSchema,
    user_id: OptionalIdSchema,
    team_id: OptionalIdSchema,
    app_version_id: AppVersionRefSchema,
    elapsed_time: DurationSchema,
    cpu_time: DurationSchema,
    flops_estimate: z.number().openapi({
      description:
        "Peak FLOPS of the devices used; ≤ 0 or exactly 1e9 means unknown (4.3e9 is used and the result is no statistics sample, as in BOINC)",
    }),
    sent_time: TimeSchema.openapi({ description: "Unix seconds; truncated to whole seconds as BOINC stores it" }),
    received_time: TimeSchema,
    validate_state: z.enum(["valid", "invalid", "inconclusive"]),
    runtime_outlier: z.boolean().optional(),
    claimed_credit: CreditSchema.optional().openapi({ description: "The credit to grant under credit_mode post_assigned" }),
    devices: z
      .number()
      .positive()
      .max(MAX_DEVICES_PER_JOB)
      .optional()
      .openapi({
        description:
          "CPUs (a CPU version: BOINC's avg_ncpus) or GPUs (a GPU plan class: its GPU usage) the job used; default 1. " +
          "Only the project-neutrality index reads it (device-hours = elapsed_time × devices); not part of the result's fingerprint",
        example: 4,
      }),
  })
  .superRefine((r, ctx) => {
    if (Math.trunc(r.sent_time) > Math.trunc(r.received_time)) {
      ctx.addIssue({ code: "custom", path: ["sent_time"], message: "sent_time is later than received_time" });
    }
  })
  .openapi("Result");

export const WorkunitSchema = z
  .strictObject({
    id: IdSchema,
    // A registered app's name (a reference, never stored): any other, however long, is an unknown app (404).
    app: z.string().min(1),
    rsc_fpops_est: z.number().min(LIMITS.minFpops).max(LIMITS.maxFpops),
    rsc_fpops_bound: z.number().min(LIMITS.minFpops).max(LIMITS.maxFpops),
    target_nresults: z.number().int().positive(),
    canonical_credit: CreditSchema.optional().openapi({ description: "The credit to grant under credit_mode fixed" }),
    results: z.array(ResultSchema).min(1).max(MAX_RESULTS_PER_WORKUNIT),
  })
  .superRefine((w, ctx) => {
    if (w.rsc_fpops_bound < w.rsc_fpops_est) {
      ctx.addIssue({ code: "custom", path: ["rsc_fpops_bound"], message: "rsc_fpops_bound is less than rsc_fpops_est" });
    }
  })
  .openapi("Workunit");

export const PassRequestSchema = z
  .strictObject({
    now: NowSchema,
    workunits: z.array(WorkunitSchema).min(1).max(MAX_WORKUNITS_PER_PASS),
  })
  .superRefine((pass, ctx) => {
    const over = resultsOverLimit(
      pass.workunits.reduce((n, w) => n + w.results.length, 0),
      "this pass",
    );
    if (over) ctx.addIssue({ ...over, input: pass.workunits, path: ["workunits"] });
    const seenWorkunits = new Set<number>();
    pass.workunits.forEach((w, i) => {
      if (seenWorkunits.has(w.id)) {
        ctx.addIssue({ code: "custom", path: ["workunits", i, "id"], message: `workunit ${w.id} appears twice in this pass` });
      }
      seenWorkunits.add(w.id);
    });
    const seen = new Set<number>();
    pass.workunits.forEach((w, i) =>
      w.results.forEach((r, j) => {
        if (seen.has(r.id)) {
          ctx.addIssue({
            code: "custom",
            path: ["workunits", i, "results", j, "id"],
            message: `result ${r.id} appears twice in this pass`,
          });
        }
        seen.add(r.id);
      }),
    );
  })
  .openapi("PassRequest");

export type PassRequest = z.infer<typeof PassRequestSchema>;

const PfcModeSchema = z
  .enum(["normal", "approx", "wu_est", "invalid"])
  .openapi({ description: "How far the claim can be trusted (BOINC's PFC_MODE)" });

const ResultOutcomeSchema = z
  .object({
    id: z.number().int(),
    validate_state: z.enum(["valid", "invalid", "inconclusive"]),
    granted_credit: z.number(),
    claimed_credit: z
      .number()
      .nullable()
      .openapi({ description: "This result's own claim (scaled PFC, capped at rsc_fpops_bound, in credit)" }),
    pfc_mode: PfcModeSchema.nullable(),
    replayed: z.boolean(),
    explain: z
      .object({
        raw_pfc: z.number().openapi({
          description:
            "elapsed_time × flops_estimate, after BOINC's substitutions; the largest double (1.7976931348623157e308) when the product overflows (an absurd claim, capped at rsc_fpops_bound)",
        }),
        pfc_scale: z.number().openapi({ description: "The app version's scale used (0 = none)" }),
        host_scale: z.number().openapi({ description: "The host scale used (0 = none)" }),
        runtime_outlier: z.boolean(),
        fair: z
          .object({
            rule: z.enum(FAIR_RULES).openapi({ description: "The fair rule that decided this claim (docs/fair-credit.md)" }),
            claimed_credit: z
              .number()
              .openapi({ description: "This result's claim under the fair policy (capped at rsc_fpops_bound, in credit)" }),
            w_v: z.number().openapi({
              description:
                "The share of the job's z (its PFC/est against the host's typical one, in log) that a non-outlier is paid: 0 where the version's z band is that of noise around rsc_fpops_est (paid the expected credit), 1 where est hides job sizes",
            }),
            feeds_quantiles: z.boolean().openapi({
              description:
                "Whether this result's z went into its version's outlier quantiles (only established hosts in good standing within the gate)",
            }),
            held_out_by_gate: z.boolean().openapi({
              description: "Whether the gate left this result's z out: the host's share of high z is far above its version's",
            }),
            founder: z.boolean().openapi({
              description:
                "Whether the host × version row is a founder of its version: it existed before the version was sealed (docs/fair-credit.md#version-3-against-farms)",
            }),
            version_sealed: z.boolean().openapi({
              description:
                "Whether the version is sealed: after its app's anchor only founders move its level, z quantiles and high-z share",
            }),
            held_out_by_seal: z.boolean().openapi({
              description:
                "Whether the seal left this result out of every version statistic (a host in good standing that is not a founder)",
            }),
            app_level: z.number().nullable().openapi({
              description:
                "The app's level S as this pass saw it; a mature version's expected credit is est × S. null before the first mature rescale",
            }),
            app_anchor: z.number().nullable().openapi({
              description: "The app's anchor S_ref: S stays within 3% of it. null until the app matured (or since a re-base)",
            }),
          })
          .optional()
          .openapi({ description: "The fair policy's view; absent for an anonymous platform" }),
        credit_by_policy: z
          .object({ boinc: z.number(), fair: z.number() })
          .optional()
          .openapi({ description: "The workunit's credit under each policy; the app's credit_policy decides which is granted" }),
      })
      .optional(),
  })
  .openapi("ResultOutcome");

export const PassResponseSchema = z
  .object({
    now: GrantedAtSchema,
    workunits: z.array(
      z.object({
        id: z.number().int(),
        credit: z.number(),
        replayed: z.boolean(),
        path: z.enum(["fresh", "late", "pending", "replayed"]).openapi({
          description:
            "fresh: credited now; late: already credited, new results get its credit; pending: no valid result yet; replayed: every result was already decided",
        }),
        results: z.array(ResultOutcomeSchema),
      }),
    ),
  })
  .openapi("PassResponse");

export type PassResponse = z.infer<typeof PassResponseSchema>;
