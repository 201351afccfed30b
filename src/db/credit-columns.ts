/**
 * The columns a grant run updates on a credit holder's row (hosts, users, teams) and on the
 * project's, each as ONE step: its value after a run from the row's values before it. A pass
 * alone applies the step to the stored row (grant-writes.ts: creditRunWrites,
 * projectCreditWrite); a pass batch walks it over each row's runs in pass order and writes the
 * last step (holder-walks.ts). Both writers, and every part of the walk (its base rows, its
 * recursive step, its UPDATE and its INSERT), are generated from these lists: a statistic a
 * pass keeps on these rows is one entry here (docs/development.md, "Adding a statistic a pass
 * keeps").
 */
import { type SQL, sql } from "drizzle-orm";
import { dayCreditAfter } from "./history-transitions";
import { queueStep } from "./queue-numbers";
import { col } from "./sql-helpers";
import { type Assignment, recentAverageRun } from "./stat-updates";

/**
 * A grant run's fields as a step reads them: the pass's `now` and its `day`, the run's first
 * grant (credit, start) and the rest of its credit (grantRun), `sum`, its credit summed in pass
 * order (what the day's credit adds), and `add`, the project's whole run summed before it is
 * added (projectCreditWrite).
 */
export type RunField = "now" | "day" | "credit" | "start" | "rest" | "sum" | "add";

export interface CreditColumn {
  /** The column's SQL name (the same in every table of the list). */
  readonly name: string;
  /** Its name in the walk's rows. */
  readonly as: string;
  /** Its value after a run: `before(as)` reads a column of the row as it was, `run(field)` the run. */
  readonly step: (before: (as: string) => SQL, run: (field: RunField) => SQL) => SQL;
  /** A row the run creates starts this column at the creating pass's `now` (the RAC clock, docs/spec/credit.md#first-seen), not at its default. */
  readonly startsAtNow?: boolean;
}

const rac = (before: (as: string) => SQL, run: (field: RunField) => SQL) =>
  recentAverageRun.sql(
    { avg: before("avg"), time: before("time") },
    { now: run("now"), credit: run("credit"), start: run("start"), rest: run("rest") },
  );

/** The RAC pair (grant_credit's update, docs/spec/credit.md#grant_credit) and the day's credit (history-transitions.ts). */
const RAC_AND_DAY: readonly CreditColumn[] = [
  { name: "expavg_credit", as: "avg", step: (b, r) => rac(b, r).avg },
  { name: "expavg_time", as: "time", step: (b, r) => rac(b, r).time, startsAtNow: true },
  // A run on a later day than the row's last grant starts a new day.
  { name: "day_credit", as: "dc", step: (b, r) => dayCreditAfter({ time: b("time"), dayCredit: b("dc") }, r("day"), r("sum")) },
];

/** A host's, user's or team's credit columns (schema.ts creditHolder). */
export const HOLDER_CREDIT_COLUMNS: readonly CreditColumn[] = [
  { name: "total_credit", as: "total", step: (b, r) => sql`${b("total")} + ${r("credit")} + ${r("rest")}` },
  ...RAC_AND_DAY,
];

/** The project row's: its total adds the run summed first, and each granting pass raises queue_seq (queue-numbers.ts). */
export const PROJECT_CREDIT_COLUMNS: readonly CreditColumn[] = [
  { name: "total_credit", as: "total", step: (b, r) => sql`${b("total")} + ${r("add")}` },
  ...RAC_AND_DAY,
  { name: "queue_seq", as: "qs", step: (b) => queueStep(b("qs")) },
  // The earliest grant's time: a pass posted later for older history moves it back.
  { name: "first_credit_time", as: "fct", step: (b, r) => sql`min(coalesce(${b("fct")}, ${r("now")}), ${r("now")})` },
];

/** The columns' assignments for one run on a row as stored (a pass alone), `run` reading the run's fields. */
export function creditAssignments(columns: readonly CreditColumn[], run: (field: RunField) => SQL): Assignment[] {
  const names = new Map(columns.map((c) => [c.as, c.name]));
  const before = (as: string) => {
    const column = names.get(as);
    if (column === undefined) throw new Error(`no credit column walks as ${as}`);
    return col(column);
  };
  return columns.map((c) => [c.name, c.step(before, run)]);
}
