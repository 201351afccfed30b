/**
 * Daily history written once per holder per day (docs/storage.md, Daily history). A holder's
 * current day is the day of its last grant (expavg_time); `day_credit` is what it was granted
 * that day. The first grant of a later day finishes the day: before the grant's update, the
 * finished day's bucket (day_credit, and the RAC pair after its last grant) is written, and
 * the grant's own UPDATE restarts day_credit with its own credit. So a pass
 * writes no history row for a holder already credited today, and today's bucket is read from
 * the live row (src/credit/history.ts openDayBucket).
 *
 * A project keeps its buckets in its ledger (credit_history, written here in the pass's batch)
 * or, when it has history databases, in history_queue rows that the minute job moves there.
 */
import { type SQL, sql } from "drizzle-orm";
import { SECONDS_PER_DAY } from "../credit/constants";
import { type CreditSubject, type HolderTable, creditHistory, creditHistoryMonthly, historyQueue, projects } from "./schema";
import type { QueueNumbers } from "./queue-numbers";
import { name } from "./sql-helpers";
import { setClause } from "./stat-updates";

/**
 * `ON CONFLICT` merge into a history bucket (a day's or a month's): credit added, the RAC pair
 * with the later time kept (its twin: rollUp in src/credit/history-months.ts).
 */
export function bucketMerge(t: typeof creditHistory | typeof creditHistoryMonthly): SQL {
  return sql`ON CONFLICT DO UPDATE SET ${setClause([
    [t.credit.name, sql`${name(t.credit)} + excluded.${name(t.credit)}`],
    [
      t.expavgCredit.name,
      sql`CASE WHEN excluded.${name(t.expavgTime)} >= ${name(t.expavgTime)} THEN excluded.${name(t.expavgCredit)} ELSE ${name(t.expavgCredit)} END`,
    ],
    [t.expavgTime.name, sql`max(${name(t.expavgTime)}, excluded.${name(t.expavgTime)})`],
  ])}`;
}

type Holder = HolderTable | typeof projects;

/** The day (UTC) of a time, as dayOf computes it in TypeScript. */
export const dayAt = (time: SQL) => sql`CAST(${time} / ${sql.raw(`${SECONDS_PER_DAY}.0`)} AS INTEGER)`;

/**
 * A holder (its last grant's time and that day's credit) granted `credit` on `day`: its day's
 * credit after; a later day starts a new one (credit-columns.ts). `credit` is the run's sum in
 * pass order, as buckets always added it, so a day's credit is the same number to the last bit.
 */
export function dayCreditAfter(holder: { time: SQL; dayCredit: SQL }, day: SQL, credit: SQL): SQL {
  return sql`CASE WHEN ${dayAt(holder.time)} < ${day} THEN ${credit} ELSE ${holder.dayCredit} + ${credit} END`;
}

/** Whether a grant on `day` finishes the holder's day: a later day, and credit in the one it had. */
export function finishesDay(holder: { time: SQL; dayCredit: SQL }, day: SQL): SQL {
  return sql`${dayAt(holder.time)} < ${day} AND ${holder.dayCredit} <> 0`;
}

/**
 * The buckets rows of `t` (as `t`, read from `from`, those `where` picks) finish when granted
 * on `day`: each row as stored, as rows of (subject, entity_id, day, credit, avg, time).
 */
export function storedFinishedDays(subject: CreditSubject, t: Holder, entityId: SQL, from: SQL, where: SQL, day: SQL): SQL {
  const time = sql`t.${name(t.expavgTime)}`;
  const dayCredit = sql`t.${name(t.dayCredit)}`;
  return sql`SELECT ${subject} AS subject, ${entityId} AS entity_id, ${dayAt(time)} AS day, ${dayCredit} AS credit,
      t.${name(t.expavgCredit)} AS avg, ${time} AS time
    FROM ${from} WHERE ${where} AND ${finishesDay({ time, dayCredit }, day)}`;
}

const HISTORY_HERE = sql`(SELECT ${name(projects.historyDatabases)} FROM ${projects} WHERE ${name(projects.id)} = `;

/**
 * Where a batch's finished buckets go: "ledger", into credit_history (the project keeps its
 * history in its ledger); "queue", as one history_queue row (it has history databases); or
 * "guarded", not read before the batch: both statements, each guarded by the project row as
 * the batch finds it. The pass's read (pass-state.ts) tells "ledger" from "queue", and then
 * only the statement that applies is written: the list of history databases only ever grows,
 * and a project's history is read from its ledger and all of them together
 * (docs/storage.md), so a bucket that goes to the ledger just as the first history database
 * is added is still read: the one statement needs no guard.
 */
export type HistoryTarget = "ledger" | "queue" | "guarded";

/**
 * Finished buckets (`finished`: rows of subject, entity_id, day, credit, avg, time, each
 * bucket at most once) into credit_history, or as one history_queue row (HistoryTarget) taking
 * the next of the batch's queue numbers (queue-numbers.ts), which it takes whatever the target,
 * as every statement of finished buckets always has. `ctes`: a WITH clause `finished` reads.
 */
export function finishedBucketWrites(
  projectId: number,
  finished: SQL,
  queue: QueueNumbers,
  history: HistoryTarget = "guarded",
  ctes: SQL = sql``,
): SQL[] {
  const number = queue.nextOf(historyQueue);
  const h = creditHistory;
  const here = history === "guarded" ? sql`${HISTORY_HERE}${projectId}) IS NULL` : sql`${history === "queue" ? 0 : 1}`;
  const direct = sql`${ctes} INSERT INTO ${h} (${name(h.projectId)}, ${name(h.subject)}, ${name(h.entityId)}, ${name(h.day)}, ${name(h.credit)}, ${name(h.expavgCredit)}, ${name(h.expavgTime)})
      SELECT ${projectId}, f.subject, f.entity_id, f.day, f.credit, f.avg, f.time FROM (${finished}) AS f WHERE ${here} ${bucketMerge(h)}`;
  // Numbers as text with 17 digits (the '!' flag: SQLite stops at 16 without it), so they read back exact.
  const exact = (x: string) => sql.raw(`printf('%!.17g', f.${x})`);
  const queued = sql`${ctes} INSERT INTO ${historyQueue} (${name(historyQueue.projectId)}, ${name(historyQueue.id)}, ${name(historyQueue.entries)})
    SELECT ${projectId}, ${number},
      json_group_array(json_array(f.subject, f.entity_id, f.day, ${exact("credit")}, ${exact("avg")}, ${exact("time")}))
    FROM (${finished}) AS f WHERE NOT ${here} HAVING count(*) > 0`;
  return { ledger: [direct], queue: [queued], guarded: [direct, queued] }[history];
}
