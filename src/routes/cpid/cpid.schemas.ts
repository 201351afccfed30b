import { z } from "@hono/zod-openapi";

/**
 * The most accounts and hosts one answer lists (docs/exports.md#volunteer-totals-by-cpid): a
 * volunteer has an account per project and a few hosts, so a real answer is far below; more
 * (a project that gave many rows one cpid) are left out and the answer says so. Each database
 * reads at most one more than this of each, in the cpid index's order.
 */
export const MAX_CPID_ROWS = 100;

export const CpidParams = z.object({
  cpid: z
    .string()
    .regex(/^[0-9a-f]{32}$/, "32 lowercase hex digits, as BOINC exports a cpid")
    .openapi({ param: { name: "cpid", in: "path" }, example: "2b1ac7d7e7c7ae3a8ab4c1b8d0e1f2a3" }),
});

const Credit = {
  total_credit: z.number(),
  expavg_credit: z.number(),
  expavg_time: z.number(),
  recent_average_credit: z.number().openapi({ description: "expavg_credit decayed to as_of" }),
};

export const CpidSchema = z
  .object({
    cpid: z.string(),
    as_of: z.number(),
    total_credit: z.number().openapi({ description: "Summed over the users with this cpid" }),
    recent_average_credit: z.number().openapi({ description: "Their RACs, each decayed to as_of, summed" }),
    projects: z.array(
      z.object({
        project: z.string(),
        project_name: z.string(),
        url: z.string().nullable(),
        user_id: z.number().int(),
        name: z.string().nullable(),
        ...Credit,
      }),
    ),
    hosts: z.array(z.object({ project: z.string(), host_id: z.number().int(), name: z.string().nullable(), ...Credit })),
    more_projects: z.boolean().openapi({
      description: `More than ${MAX_CPID_ROWS} accounts have this cpid: the first ${MAX_CPID_ROWS} (by project, then id) are listed and summed`,
    }),
    more_hosts: z
      .boolean()
      .openapi({ description: `More than ${MAX_CPID_ROWS} hosts have this host_cpid: the first ${MAX_CPID_ROWS} are listed` }),
  })
  .openapi("CrossProjectTotals");
