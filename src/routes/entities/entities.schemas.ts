/** Hosts, users and teams: what a project registers and what anyone reads. */
import { z } from "@hono/zod-openapi";
import { amHostLinkFields } from "../am/am-rpcs.host-links";
import { CpidSchema, LIMITS, OptionalIdSchema, TEXT_LIMITS, TimeSchema, storedText } from "../common";

const PutBase = {
  create_time: TimeSchema.optional().openapi({ description: "Unix seconds; starts the RAC clock (default: now)" }),
  name: storedText(TEXT_LIMITS.boincName).optional().openapi({ description: "BOINC's name (varchar(254))" }),
};
export const putSchemas = {
  hosts: z
    .strictObject({
      ...PutBase,
      user_id: OptionalIdSchema.optional(),
      cpid: CpidSchema.optional().openapi({
        description:
          "BOINC's exported host_cpid: 32 hex digits, md5(host_cpid + owner's email), as db_dump writes it. Stored in lower case",
      }),
      p_fpops: z.number().min(-LIMITS.maxFpops).max(LIMITS.maxFpops).nullable().optional().openapi({
        description: "The host's benchmark FLOPS (BOINC's p_fpops), which trickle credit pays; negative or null: unknown",
      }),
      ...amHostLinkFields,
    })
    .openapi("PutHost"),
  users: z
    .strictObject({
      ...PutBase,
      team_id: OptionalIdSchema.optional(),
      cpid: CpidSchema.optional().openapi({
        description: "BOINC's exported cpid: 32 hex digits, md5(cross_project_id + email); never the email. Stored in lower case",
      }),
      stats_export: z
        .boolean()
        .optional()
        .openapi({ description: "false: left out of stats exports and cross-project totals (default true)" }),
    })
    .openapi("PutUser"),
  teams: z.strictObject({ ...PutBase }).openapi("PutTeam"),
};
export type PutHolder = z.infer<(typeof putSchemas)["hosts"]> & z.infer<(typeof putSchemas)["users"]>;

const CreditHolderSchema = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  create_time: z.number(),
  total_credit: z.number(),
  expavg_credit: z.number().openapi({ description: "BOINC's stored RAC, as of expavg_time" }),
  expavg_time: z.number(),
  recent_average_credit: z.number().openapi({ description: "expavg_credit decayed to as_of" }),
  as_of: z.number().openapi({ description: "The time of this answer (Unix seconds)" }),
});
const hostFields = { user_id: z.number().int(), host_cpid: z.string().nullable() };
const userFields = { team_id: z.number().int(), cpid: z.string().nullable() };

/** What a PUT answers: the row as stored. */
export const storedSchemas = {
  hosts: CreditHolderSchema.extend({ ...hostFields, p_fpops: z.number().nullable() }).openapi("Host"),
  users: CreditHolderSchema.extend(userFields).openapi("User"),
  teams: CreditHolderSchema.openapi("Team"),
};

const AppCreditSchema = z
  .object({
    app: z.string(),
    total_credit: z.number(),
    expavg_credit: z.number(),
    expavg_time: z.number(),
    recent_average_credit: z.number().openapi({ description: "expavg_credit decayed to as_of" }),
    jobs: z.number().int().openapi({ description: "Valid jobs credited (BOINC's njobs)" }),
  })
  .openapi("AppCredit");
const snapshotTime = { snapshot_time: z.number().openapi({ description: "When this was read from the ledger (Unix seconds)" }) };
const perApp = { apps: z.array(AppCreditSchema).openapi({ description: "Credit per app (BOINC's credit_user / credit_team)" }) };

/** What a GET answers: the public snapshot, RAC decayed to the time of the answer. */
export const publicSchemas = {
  hosts: CreditHolderSchema.extend({ ...hostFields, ...snapshotTime }).openapi("PublicHost"),
  users: CreditHolderSchema.extend({ ...userFields, ...perApp, ...snapshotTime }).openapi("PublicUser"),
  teams: CreditHolderSchema.extend({ ...perApp, ...snapshotTime }).openapi("PublicTeam"),
};
