import { z } from "@hono/zod-openapi";
import { CREDIT_POLICIES, GPU_ONLY_SCALES } from "../../credit/parameters";
import { CREDIT_MODES } from "../../credit/credit-mode";
import { CreditSchema, LIMITS } from "../common";

export const AppNameParams = z.object({
  slug: z.string().openapi({ param: { name: "slug", in: "path" } }),
  app: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,254}$/, "letters, digits, '_', '.', '-'")
    .openapi({ param: { name: "app", in: "path" }, example: "einstein_O3AS" }),
});

export const PutAppSchema = z
  .strictObject({
    host_scale_check: z.boolean().optional(),
    target_nresults: z.number().int().nonnegative().optional().openapi({
      description: "BOINC's app.target_nresults; > 1 with a workunit target_nresults of 1 means adaptive replication",
    }),
    credit_mode: z.enum(CREDIT_MODES).optional(),
    max_granted_credit: CreditSchema.optional().openapi({ description: "Cap per workunit; 0 = no cap" }),
    min_avg_pfc: z
      .number()
      .nonnegative()
      .max(LIMITS.maxFpops)
      .optional()
      .openapi({ description: "Set by rescale; an admin may set it, as in BOINC" }),
    gpu_only_scale: z
      .enum(GPU_ONLY_SCALES)
      .optional()
      .openapi({
        description:
          "How a GPU-only app is scaled: 'boinc' = 0.1 × the GPU average; 'cross-project' = the plan-class registry's " +
          "factor for its GPU versions' plan class (else their processor type's, else 0.1) × the GPU average",
      }),
    cross_project_version: z.number().positive().nullable().optional().openapi({
      description: "Pin the plan-class table version (its `version` in GET /v1/plan-classes) that 'cross-project' reads; null: the latest",
    }),
    trickle_max_runtime: z
      .number()
      .positive()
      .max(LIMITS.maxDuration)
      .nullable()
      .optional()
      .openapi({
        description:
          "Seconds: a trickle's runtime above this is cut to it (BOINC's trickle handler --max_runtime, usually the app's " +
          "trickle interval). Required before the app's trickles are accepted; null removes it",
      }),
    deprecated: z.boolean().optional(),
    credit_policy: z
      .enum(CREDIT_POLICIES)
      .optional()
      .openapi({
        description:
          "Which rules pay an adaptive app's claims: 'boinc' (CreditNew, BOINC's exact numbers) or 'fair' (version 3, docs/fair-credit.md): " +
          "each claim against the host's own typical claim, young hosts and outliers paid the expected credit est × S, never the bound. " +
          "Once the app matured (1,000 samples in its mature versions) S is anchored and held within 3% of S_ref, and only host × version " +
          "rows that existed then (founders) move its versions' statistics, so a farm arriving later cannot raise anyone's credit. " +
          "Not covered: a farm among the founders (present from the app's first days) still captures the z band; a genuine change of " +
          "the app's level beyond 3% needs POST …/fair-rebase. Both sets of statistics are always kept, so a switch takes effect at the next pass, warm",
      }),
  })
  .openapi("PutApp");
export type PutApp = z.infer<typeof PutAppSchema>;

/**
 * What an `ingest` token may send in PUT …/apps/{app}: registering the app with BOINC's own
 * columns, as the bridge does (bridge/service/register-apps.ts). Every other field is a setting of the
 * project's and needs a `manage` token (docs/tokens-and-audit.md#scopes).
 */
export const INGEST_APP_FIELDS: readonly (keyof PutApp)[] = ["host_scale_check", "target_nresults"];

export const AppSchema = z
  .object({
    name: z.string(),
    min_avg_pfc: z.number(),
    host_scale_check: z.boolean(),
    target_nresults: z.number().int(),
    credit_mode: z.enum(CREDIT_MODES),
    max_granted_credit: z.number(),
    gpu_only_scale: z.enum(GPU_ONLY_SCALES),
    cross_project_version: z.number().nullable(),
    trickle_max_runtime: z.number().nullable(),
    deprecated: z.boolean(),
    credit_policy: z.enum(CREDIT_POLICIES),
    fair_level: z
      .number()
      .nullable()
      .openapi({ description: "The fair policy's app level S (set by rescale); null before a version is mature" }),
    fair_s_raw: z.number().nullable().openapi({
      description: "What S would be without the anchor's clamp, at the last rescale; null before a version is mature",
    }),
    fair_s_ref: z.number().nullable().openapi({
      description:
        "The app's anchor S_ref (fair policy version 3): S stays within 3% of it. Taken at the first rescale at which the mature versions hold 1,000 samples; null before that or since a re-base",
    }),
    fair_anchored_at: z.number().nullable().openapi({ description: "When the last anchor was taken (Unix seconds); null: never" }),
    fair_rebased_at: z
      .number()
      .nullable()
      .openapi({ description: "When the project last re-based the app (Unix seconds, POST …/fair-rebase); null: never" }),
    fair_held_at_anchor_limit: z.boolean().openapi({
      description:
        "The alarm: at the last rescale S was held at 3% from S_ref (fair_s_raw is beyond it). Credit keeps S_ref's unit; if the app's level really changed, re-base it",
    }),
  })
  .openapi("App");

export const AppListSchema = z.object({ apps: z.array(AppSchema) }).openapi("AppList");
