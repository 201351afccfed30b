/**
 * The columns a grant run updates on a credit holder's row (hosts, users, teams), on the
 * project's and on an app version's (its RAC), each as ONE step: its value after a run from
 * the row's values before it. The writer walks it over each row's runs in pass order and
 * writes the last step (holder-walks.ts; an app version's: version-writes.ts). Every part of
 * the walk (its base rows, its recursive step, its UPDATE and its INSERT) is generated from
 * these lists: a statistic a pass keeps on these rows is one entry here (docs/development.md,
 * "Adding a statistic a pass keeps").
 */
import { type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { dayCreditAfter } from "./history-transitions";
import { queueStep } from "./queue-numbers";
import { type HolderTable, type appVersions, type projects, users } from "./schema";
import { recentAverageRun } from "./stat-updates";

/**
 * A grant run's fields as a step reads them: the pass's `now` and its `day`, the run's first
 * grant (credit, start) and the rest of its credit (grantRun), `sum`, its credit summed in pass
 * order (what the day's credit adds), and `add`, the project's whole run summed before it is
 * added (holder-walks.ts projectWalk).
 */
export const RUN_FIELDS = ["now", "day", "credit", "start", "rest", "sum", "add"] as const;
export type RunField = (typeof RUN_FIELDS)[number];

/** The tables whose rows a grant run steps. */
export type CreditTable = HolderTable | typeof projects | typeof appVersions;

export interface CreditColumn<T extends CreditTable = CreditTable> {
  /** The column on each table of its list, as the schema declares it: a rename there fails to compile here. */
  readonly column: (table: T) => AnySQLiteColumn;
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

/** The RAC pair (grant_credit's update, docs/spec/credit.md#grant_credit): every table's. */
const RAC: readonly CreditColumn[] = [
  { column: (t) => t.expavgCredit, as: "avg", step: (b, r) => rac(b, r).avg },
  { column: (t) => t.expavgTime, as: "time", step: (b, r) => rac(b, r).time, startsAtNow: true },
];

/** The day's credit (history-transitions.ts): a run on a later day than the row's last grant starts a new day. */
const DAY: CreditColumn<HolderTable | typeof projects> = {
  column: (t) => t.dayCredit,
  as: "dc",
  step: (b, r) => dayCreditAfter({ time: b("time"), dayCredit: b("dc") }, r("day"), r("sum")),
};

/** A host's, user's or team's credit columns (schema.ts creditHolder). */
export const HOLDER_CREDIT_COLUMNS: readonly CreditColumn<HolderTable>[] = [
  { column: (t) => t.totalCredit, as: "total", step: (b, r) => sql`${b("total")} + ${r("credit")} + ${r("rest")}` },
  ...RAC,
  DAY,
];

/**
 * A user's run count: numbers its credit, so that the newest of its row and of its carrier
 * hosts' owner columns is its credit (owner-carriers.ts). Users' alone: their walk adds it to
 * the holders' list.
 */
export const CREDIT_SEQ: CreditColumn<HolderTable> = {
  column: (t) => {
    if (t !== users) throw new Error("credit_seq is a column of users alone");
    return users.creditSeq;
  },
  as: "seq",
  step: (b) => sql`${b("seq")} + 1`,
};

/** The project row's: its total adds the run summed first, and each granting pass raises queue_seq (queue-numbers.ts). */
export const PROJECT_CREDIT_COLUMNS: readonly CreditColumn<typeof projects>[] = [
  { column: (t) => t.totalCredit, as: "total", step: (b, r) => sql`${b("total")} + ${r("add")}` },
  ...RAC,
  DAY,
  { column: (t) => t.queueSeq, as: "qs", step: (b) => queueStep(b("qs")) },
  // The earliest grant's time: a pass posted later for older history moves it back.
  { column: (t) => t.firstCreditTime, as: "fct", step: (b, r) => sql`min(coalesce(${b("fct")}, ${r("now")}), ${r("now")})` },
];

/** An app version's: its RAC, from the credit its results were granted (docs/spec/credit.md#end-of-the-pass). */
export const APP_VERSION_CREDIT_COLUMNS: readonly CreditColumn<typeof appVersions>[] = RAC;
