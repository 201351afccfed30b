/**
 * The neutrality window's columns on host_app_versions: a change's sample as JSON-row fields,
 * and the assignments that add it to the row in the walk the pass already makes
 * (host-app-version-writes.ts; so the window costs no row write of its own).
 */
import type { SQL } from "drizzle-orm";
import type { HostAppVersionChange } from "../credit/pass";
import { hostAppVersions as h } from "./schema";
import { col } from "./sql-helpers";
import { type NeutralWindowRefs, neutralWindowAdd } from "./stat-updates";

/** A change's sample as fields of the statement's JSON rows (absent: no sample). */
export const NEUTRAL_FIELDS = ["np", "nc", "nd", "nn"] as const;

export function neutralFields(c: Pick<HostAppVersionChange, "neutral">): Partial<Record<(typeof NEUTRAL_FIELDS)[number], number>> {
  const n = c.neutral;
  return n ? { np: n.period, nc: n.credit, nd: n.deviceSeconds, nn: n.results } : {};
}

/** The row's window columns, as NeutralWindowRefs names them. */
export const NEUTRAL_COLUMNS: Record<keyof NeutralWindowRefs, string> = {
  period: h.neutralPeriod.name,
  credit: h.neutralCredit.name,
  deviceSeconds: h.neutralDeviceSeconds.name,
  results: h.neutralResults.name,
  prevCredit: h.neutralPrevCredit.name,
  prevDeviceSeconds: h.neutralPrevDeviceSeconds.name,
  prevResults: h.neutralPrevResults.name,
};

/** References to the window's columns (optionally of a table alias). */
export function neutralColumnRefs(qualify: (column: string) => SQL = col): NeutralWindowRefs {
  return Object.fromEntries(Object.entries(NEUTRAL_COLUMNS).map(([k, c]) => [k, qualify(c)])) as unknown as NeutralWindowRefs;
}

/** `column = new value` for each window column, the sample read from `field` and the window as it was from `current(column)`. */
export function neutralAssignments(field: (name: string) => SQL, current: (column: string) => SQL): Record<string, SQL> {
  const next = neutralWindowAdd.sql(neutralColumnRefs(current), {
    period: field("np"),
    credit: field("nc"),
    deviceSeconds: field("nd"),
    results: field("nn"),
  });
  return Object.fromEntries(Object.entries(NEUTRAL_COLUMNS).map(([k, c]) => [c, next[k as keyof NeutralWindowRefs]]));
}
