import { z } from "@hono/zod-openapi";
import { CreditSchema, IdSchema, LIMITS, StoredUrlSchema, TEXT_LIMITS, TimeSchema, storedText } from "../common";

/** At most this many app versions in one push (BOINC projects have tens to hundreds). */
const MAX_PUSHED_VERSIONS = 10_000;

/**
 * One app version as BOINC's app_versions.php prints it (app_name is `app` here, as in
 * Cobblestone's own GET /app-versions, whose output can be pushed as it is). Other fields are
 * ignored, so that a newer exporter's extra fields do not break a push.
 */
const PushedVersionSchema = z.object({
  id: IdSchema,
  app: storedText(TEXT_LIMITS.boincName).min(1),
  platform: storedText(TEXT_LIMITS.boincName).min(1),
  plan_class: storedText(TEXT_LIMITS.boincName),
  version_num: z.number().int().nonnegative(),
  create_time: TimeSchema.optional(),
  deprecated: z.boolean().optional().openapi({ description: "A deprecated version is left out, as app_versions.php leaves it out" }),
  pfc_n: z.number().nonnegative().max(LIMITS.maxCredit),
  pfc_avg: z.number().nonnegative().max(LIMITS.maxFpops),
  pfc_scale: z.number().nonnegative().max(LIMITS.maxCredit),
  expavg_credit: CreditSchema,
  expavg_time: TimeSchema,
});

export const PushSchema = z
  .strictObject({
    project: storedText(TEXT_LIMITS.boincName).optional().openapi({
      description: "Which of the contributor's projects this is (a deployment pushing many); default ''",
    }),
    app_versions: z.array(PushedVersionSchema).max(MAX_PUSHED_VERSIONS),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<number>();
    body.app_versions.forEach((v, i) => {
      if (seen.has(v.id)) ctx.addIssue({ code: "custom", path: ["app_versions", i, "id"], message: `app version ${v.id} is listed twice` });
      seen.add(v.id);
    });
  })
  .openapi("CentralPush");

export type Push = z.infer<typeof PushSchema>;

export const PushResultSchema = z
  .object({
    contributor: z.string(),
    project: z.string(),
    app_versions: z.number().int().openapi({ description: "Versions stored (deprecated ones are left out)" }),
    reported_at: z.number().openapi({ description: "Server time of the push; a set not refreshed for 30 days drops out" }),
  })
  .openapi("CentralPushResult");

export const CreateContributorSchema = z
  .strictObject({ name: storedText(TEXT_LIMITS.displayName).min(1), url: StoredUrlSchema.optional() })
  .openapi("CreateContributor");

export const CreatedContributorSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    token: z.string().openapi({ description: "The central token. Shown only this once; store it." }),
  })
  .openapi("CreatedContributor");

export const ContributorListSchema = z
  .object({
    contributors: z.array(
      z.object({
        id: z.number().int(),
        name: z.string(),
        url: z.string().nullable(),
        created_at: z.number(),
        last_report: z.number().nullable(),
        projects: z.number().int(),
        app_versions: z.number().int(),
      }),
    ),
  })
  .openapi("ContributorList");
