/**
 * A credit walk over rows keyed by (project_id, id): each row's grant runs, in pass order, as
 * the steps of a recursive walk of the columns of credit-columns.ts (walks.ts), from the rows
 * as stored; only the last step is written. The holders' and the project's walks
 * (holder-walks.ts) and an app version's RAC walk (version-writes.ts) are built from these.
 */
import { type SQL, sql } from "drizzle-orm";
import { dayOf } from "../credit/history";
import { type CreditColumn, type CreditTable, RUN_FIELDS } from "./credit-columns";
import type { GrantPart } from "./grant-groups";
import type { HolderTable, appVersions } from "./schema";
import { jsonList, name, ref } from "./sql-helpers";
import { grantRun, setClause } from "./stat-updates";
import { type Numbered, walkCtes } from "./walks";

/** One grant run on row `k` (credit-columns.ts RunField): a step of its walk. */
export interface RunStep {
  readonly k: number;
  readonly now: number;
  readonly day: number;
  readonly credit: number;
  readonly start: number;
  readonly rest: number;
  /** The run's credit summed in pass order: what the day's credit adds. */
  readonly sum: number;
  /** The project's total adds the run's credit summed before it is added (holder-walks.ts projectWalk). */
  readonly add?: number;
}

/** A step numbered in its row's walk (walks.ts numberSteps). */
export type Step = RunStep & Numbered;

/** A pass's grant run (`parts`, in pass order) on row `k` at the pass's `now`. */
export function runStep(k: number, now: number, parts: readonly GrantPart[]): RunStep {
  const run = grantRun(now, parts);
  return {
    k,
    now,
    day: dayOf(now),
    credit: run.first.credit,
    start: run.first.start,
    rest: run.restCredit,
    sum: parts.reduce((s, p) => s + p.credit, 0),
  };
}

/** A column's step, read from the walk's previous row `w` and its step `s` (its own fields: no table needed). */
export type Stepped = Pick<CreditColumn, "as" | "step">;

/** A field of the walk's previous row (`w`) and of its step (`s`). */
export const w = (field: string) => ref("w", field);
export const s = (field: string) => ref("s", field);
/** The walk's columns as the rows of `alias` hold them: `alias."as", …`. */
export const walked = (alias: string, columns: readonly Stepped[]) =>
  sql.join(
    columns.map((c) => ref(alias, c.as)),
    sql`, `,
  );
/** The walk's columns as its own rows name them. */
export const carried = (columns: readonly Stepped[]) =>
  sql.join(
    columns.map((c) => sql.identifier(c.as)),
    sql`, `,
  );
/** The columns' names on `table`, for an INSERT's or a row value's column list. */
export const names = <T extends CreditTable>(table: T, columns: readonly CreditColumn<T>[]) =>
  sql.join(
    columns.map((c) => name(c.column(table))),
    sql`, `,
  );

/** A walk of `columns` (`${p}s`, `${p}b`, `${p}w`: walks.ts) over grant-run steps from `base`. */
export function creditWalk(p: string, columns: readonly Stepped[], base: SQL, steps: readonly Step[]): SQL {
  return walkCtes({
    prefix: p,
    steps,
    fields: RUN_FIELDS,
    base,
    carried: columns.map((c) => c.as),
    next: columns.map((c) => c.step(w, s)),
  });
}

/**
 * Rows as stored, each with its key (`k`) and the columns' values; `from`: where they are read
 * (a user's credit as it stands: owner-carriers.ts), by default the table.
 */
export function storedBase<T extends CreditTable>(t: T, columns: readonly CreditColumn<T>[], where: SQL, from: SQL = sql`${t}`): SQL {
  const values = sql.join(
    columns.map((c) => sql`${name(c.column(t))} AS ${sql.raw(c.as)}`),
    sql`, `,
  );
  return sql`SELECT ${name(t.id)} AS k, ${values} FROM ${from} WHERE ${where}`;
}

/** The tables whose rows are keyed by (project_id, id). */
export type KeyedTable = HolderTable | typeof appVersions;

export const storedRows = (t: KeyedTable, projectId: number, keys: readonly number[]) =>
  sql`${name(t.projectId)} = ${projectId} AND ${name(t.id)} IN ${jsonList(keys)}`;

/**
 * ONE stored row's walk through its numbered `steps`: the CTEs, and the SET assignment of its
 * last step, to join the other assignments of that row's statement (an app version's PFC walk
 * and fair state: version-writes.ts), so the row is written once.
 */
export function storedRowWalk<T extends KeyedTable>(
  projectId: number,
  t: T,
  p: string,
  columns: readonly CreditColumn<T>[],
  steps: readonly Step[],
): { ctes: SQL; assignment: SQL } {
  const keys = [...new Set(steps.map((x) => x.k))];
  if (keys.length !== 1) throw new Error(`a row's walk takes one row's steps, not ${keys.length} rows'`);
  return {
    ctes: creditWalk(p, columns, storedBase(t, columns, storedRows(t, projectId, keys)), steps),
    assignment: sql`(${names(t, columns)}) = (SELECT ${carried(columns)} FROM ${sql.raw(`${p}w`)} WHERE fin = 1)`,
  };
}

/**
 * Stored rows of `t` walked through `steps` (each row's, numbered) and written back: one
 * UPDATE. The last steps are materialized once, each row then found by its key (a subquery
 * per row would walk again).
 */
export function storedWalkUpdate<T extends KeyedTable>(
  projectId: number,
  t: T,
  p: string,
  columns: readonly CreditColumn<T>[],
  steps: readonly Step[],
): SQL[] {
  if (steps.length === 0) return [];
  const keys = [...new Set(steps.map((x) => x.k))];
  // The IN makes SQLite seek each row by its key; with the join alone it scanned every row of
  // the project's table, probing z for each (rows read grew with the table).
  return [
    sql`WITH RECURSIVE ${creditWalk(p, columns, storedBase(t, columns, storedRows(t, projectId, keys)), steps)},
        ${sql.raw(`${p}z`)} AS MATERIALIZED (SELECT k, ${carried(columns)} FROM ${sql.raw(`${p}w`)} WHERE fin = 1)
      UPDATE ${t} SET ${setClause(columns.map((c) => [c.column(t).name, ref("z", c.as)]))}
      FROM ${sql.raw(`${p}z`)} AS z WHERE ${name(t.projectId)} = ${projectId} AND ${name(t.id)} = z.k
        AND ${name(t.id)} IN (SELECT k FROM ${sql.raw(`${p}z`)})`,
  ];
}
