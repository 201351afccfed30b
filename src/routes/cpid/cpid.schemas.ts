import { z } from "@hono/zod-openapi";

/**
 * The most accounts and hosts one answer reads, and so lists (docs/exports.md#volunteer-totals-by-cpid):
 * a volunteer has an account per project and a few hosts, so a real answer is one page; more
 * (a project that gave many rows one cpid) are read a page at a time by `next_cursor`. Each
 * database reads at most one more than this of each, in the cpid index's order.
 */
export const MAX_CPID_ROWS = 100;

/** A place in a list: after this (project id, id). */
export type CpidPosition = readonly [projectId: number, id: number];
/** Where each list goes on; null: that list is done. */
export interface CpidCursor {
  readonly accounts: CpidPosition | null;
  readonly hosts: CpidPosition | null;
}

const whole = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
const position = (x: unknown): x is CpidPosition | null => x === null || (Array.isArray(x) && x.length === 2 && x.every(whole));

/** next_cursor: base64url of [accounts, hosts], each [project id, id] or null. */
export function encodeCpidCursor(c: CpidCursor): string {
  return btoa(JSON.stringify([c.accounts, c.hosts]))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

export function decodeCpidCursor(cursor: string): CpidCursor | null {
  try {
    const parsed = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/"))) as unknown;
    if (!Array.isArray(parsed) || parsed.length !== 2 || !parsed.every(position)) return null;
    const [accounts, hosts] = parsed as [CpidPosition | null, CpidPosition | null];
    return accounts === null && hosts === null ? null : { accounts, hosts };
  } catch {
    return null;
  }
}

export const CpidParams = z.object({
  cpid: z
    .string()
    .regex(/^[0-9a-f]{32}$/, "32 lowercase hex digits, as BOINC exports a cpid")
    .openapi({ param: { name: "cpid", in: "path" }, example: "2b1ac7d7e7c7ae3a8ab4c1b8d0e1f2a3" }),
});

export const CpidQuery = z.object({
  cursor: z
    .string()
    .max(128)
    .refine((c) => decodeCpidCursor(c) !== null, "not a cursor this API gave out")
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "next_cursor of the previous page" }),
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
    total_credit: z.number().openapi({ description: "Summed over the accounts listed in this answer" }),
    recent_average_credit: z.number().openapi({ description: "Their RACs, each decayed to as_of, summed" }),
    projects: z
      .array(
        z.object({
          project: z.string(),
          project_name: z.string(),
          url: z.string().nullable(),
          user_id: z.number().int(),
          name: z.string().nullable(),
          ...Credit,
        }),
      )
      .openapi({ description: "The accounts with this cpid, by project (in the order they were created here), then id" }),
    hosts: z
      .array(z.object({ project: z.string(), host_id: z.number().int(), name: z.string().nullable(), ...Credit }))
      .openapi({ description: "The hosts with this host_cpid, in the same order" }),
    more_projects: z.boolean().openapi({
      description: `More accounts with this cpid follow (this answer read ${MAX_CPID_ROWS} of them): next_cursor reads them`,
    }),
    more_hosts: z
      .boolean()
      .openapi({ description: `More hosts with this host_cpid follow (this answer read ${MAX_CPID_ROWS}): next_cursor reads them` }),
    next_cursor: z
      .string()
      .nullable()
      .openapi({
        description: `Pass as ?cursor= for the next ${MAX_CPID_ROWS} accounts and hosts; null when both lists are done`,
      }),
  })
  .openapi("CrossProjectTotals");
