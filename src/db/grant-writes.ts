/**
 * A pass's grants as statements on the rows as stored (a pass alone, or a trickle batch): the
 * day buckets the grants finish (history-transitions.ts), each holder's run and the project's
 * run (each one step of the column lists of credit-columns.ts, which a pass batch walks
 * instead: holder-walks.ts), and the per-app credit's queue row (app-credit-queue.ts).
 */
import { type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { dayOf } from "../credit/history";
import type { Grant } from "../credit/pass";
import { appCreditQueueWrites } from "./app-credit-queue";
import { type CreditColumn, HOLDER_CREDIT_COLUMNS, PROJECT_CREDIT_COLUMNS, boundRunFields, creditAssignments } from "./credit-columns";
import type { FreshHolders, GrantGroups, GrantPart } from "./grant-groups";
import { type HistoryTarget, historyTransitionWrites } from "./history-transitions";
import { QueueNumbers } from "./queue-numbers";
import { type HolderTable, hosts, projects, teams, users } from "./schema";
import { col, conflictRowField, name, ref, withJsonRows, chunks, zeroedRow } from "./sql-helpers";
import { type Assignment, grantRun, setClause } from "./stat-updates";
import { type PhasedWrites, assembleWrites } from "./write-phases";

/** grantPhases as one list, in the order of WRITE_PHASES. */
export function grantWrites(
  projectId: number,
  now: number,
  grants: readonly Grant[],
  groups: GrantGroups,
  fresh?: FreshHolders,
  history?: HistoryTarget,
): SQL[] {
  return assembleWrites(grantPhases(projectId, now, grants, groups, fresh, history));
}

/**
 * The grants' writes (`groups`: grantGroups of `grants`): the history buckets the grants
 * finish (history-transitions.ts, from the rows as they are before this pass), each holder's
 * run (which also starts its new day), the pass's per-app credit as one queue row for the
 * hourly fold, and the project's run.
 */
export function grantPhases(
  projectId: number,
  now: number,
  grants: readonly Grant[],
  groups: GrantGroups,
  fresh?: FreshHolders,
  history?: HistoryTarget,
): Pick<PhasedWrites, "finishedDays" | "holderCredit" | "appCreditQueue" | "projectCredit"> {
  const queue = new QueueNumbers(projectId);
  const finishedDays = historyTransitionWrites(projectId, now, groups, queue, history);
  const appCreditQueue = appCreditQueueWrites(projectId, [{ now, groups }], queue);
  // Last: the project's run raises queue_seq past the numbers the two above took.
  return {
    finishedDays,
    holderCredit: holderCreditWrites(projectId, now, groups, fresh),
    appCreditQueue,
    projectCredit: projectCreditWrite(projectId, now, grants, queue),
  };
}

/** One pass's grant run on each host, user and team. */
function holderCreditWrites(projectId: number, now: number, groups: GrantGroups, fresh?: FreshHolders): SQL[] {
  const rowsOf = <V>(m: ReadonlyMap<number, V>) => new Map([...m].map(([id, v]) => [`${id}`, v as number | null]));
  return [
    ...creditRunWrites(hosts, projectId, now, groups.hosts, fresh && { rows: rowsOf(fresh.hosts), attribution: hosts.userId }),
    ...creditRunWrites(users, projectId, now, groups.users, fresh && { rows: rowsOf(fresh.users), attribution: users.teamId }),
    ...creditRunWrites(teams, projectId, now, groups.teams, fresh && { rows: rowsOf(fresh.teams) }),
  ];
}

/**
 * Applies each row's run of grants (grant_credit, docs/spec/credit.md#grant_credit) to a
 * holder's row: each of `columns` (credit-columns.ts) takes its step, the total adding the
 * run's credit, the RAC updated by the run, the day's credit. `groups` are keyed by holder id.
 */
export function creditRunWrites(
  table: HolderTable,
  projectId: number,
  now: number,
  groups: ReadonlyMap<string, readonly GrantPart[]>,
  fresh?: FreshRows,
  columns: readonly CreditColumn<HolderTable>[] = HOLDER_CREDIT_COLUMNS,
): SQL[] {
  const rows = [...groups].map(([key, parts]) => {
    const run = grantRun(now, parts);
    return {
      k: Number(key),
      ...(fresh?.rows.has(key) ? { fresh: fresh.rows.get(key) } : {}),
      credit: run.first.credit,
      start: run.first.start,
      rest: run.restCredit,
      // The run's credit summed in pass order: what the day's history bucket adds.
      sum: parts.reduce((s, p) => s + p.credit, 0),
    };
  });
  const g = (f: string) => ref("g", f);
  /** The run's assignments to its row, `g(field)` reading the run's fields. */
  const assignments = (g: (f: string) => SQL): Assignment[] =>
    creditAssignments(table, columns, (f) => {
      if (f === "now") return sql`${now}`;
      if (f === "day") return sql`${dayOf(now)}`;
      if (f === "add") throw new Error("a holder's run has no summed total");
      return g(f);
    });
  const set = assignments(g);
  const fields = ["k", "credit", "start", "rest", "sum"];
  const updates = chunks(rows.filter((r) => !("fresh" in r))).map(
    (chunk) => sql`${withJsonRows("g", fields, chunk)} UPDATE ${table} SET ${setClause(set)} FROM g
      WHERE ${name(table.projectId)} = ${projectId} AND ${name(table.id)} = ${g("k")}`,
  );
  if (!fresh) return updates;
  // The same assignments on the row as attributionWrites would have created it (RAC clock at
  // `now`). If a concurrent pass created the row since this pass's read, the run is applied to
  // that row as the update above would (its fields found by its key) and the attribution is
  // this pass's, as attributionWrites sets it: a holder two passes create is no conflict.
  const ofExcluded = conflictRowField("g", [["k", table.id]]);
  const onConflict: Assignment[] = [
    ...assignments(ofExcluded),
    ...(fresh.attribution ? [[fresh.attribution.name, sql`excluded.${name(fresh.attribution)}`] as const] : []),
  ];
  const startsAtNow = Object.fromEntries(columns.filter((c) => c.startsAtNow).map((c) => [c.column(table).name, now]));
  const inserts = chunks(rows.filter((r) => "fresh" in r)).map(
    (chunk) => sql`${withJsonRows("g", [...fields, "fresh"], chunk)}
      INSERT INTO ${table} (${name(table.projectId)}, ${name(table.id)}, ${name(table.createTime)}, ${
        fresh.attribution ? sql`${name(fresh.attribution)}, ` : sql``
      }${sql.join(
        set.map(([c]) => col(c)),
        sql`, `,
      )})
      SELECT ${projectId}, ${g("k")}, ${now}, ${fresh.attribution ? sql`${g("fresh")}, ` : sql``}${sql.join(
        set.map(([, v]) => v),
        sql`, `,
      )} FROM g, ${zeroedRow(
        table,
        set.map(([c]) => c),
        startsAtNow,
      )} WHERE true ON CONFLICT DO UPDATE SET ${setClause(onConflict)}`,
  );
  return [...inserts, ...updates];
}

/** Rows creditRunWrites inserts instead of updating: key → the attribution column's value. */
export interface FreshRows {
  readonly rows: ReadonlyMap<string, number | null>;
  readonly attribution?: AnySQLiteColumn;
}

/**
 * The whole pass is one grant run on the project's row (its columns: PROJECT_CREDIT_COLUMNS);
 * the same update starts the project's new day (history-transitions.ts) and raises queue_seq
 * past the number the pass's queue rows took (queue-numbers.ts).
 */
export function projectCreditWrite(projectId: number, now: number, grants: readonly Grant[], queue: QueueNumbers): SQL[] {
  if (grants.length === 0) return [];
  const fields = boundRunFields(
    now,
    grants.map((g) => ({ credit: g.credit, start: g.startTime })),
  );
  const set = creditAssignments(projects, PROJECT_CREDIT_COLUMNS, (f) => fields[f]).map(([c, v]): Assignment => [
    c,
    c === projects.queueSeq.name ? queue.raise(v, 1) : v,
  ]);
  return [sql`UPDATE ${projects} SET ${setClause(set)} WHERE ${name(projects.id)} = ${projectId}`];
}
