/**
 * Moving a project's finished history days from its ledger's history_queue into its history
 * databases (schema.ts history_queue; docs/storage.md). No transaction spans two D1
 * databases, so each move is made exactly once by a mark written with the rows: a history
 * database's copy of the project row holds `history_moved_through`, and its batch adds the
 * buckets of the queue rows above that mark only, then raises it. The ledger
 * deletes the queue rows afterwards; a move retried after a failure between the two finds the
 * mark raised and only deletes.
 */
import { type SQL, and, asc, eq, sql } from "drizzle-orm";
import type { CreditSubject } from "./schema";
import { runBatch } from "./batch";
import type { Db } from "./client";
import { bucketMerge } from "./history-transitions";
import { type HistoryDatabase, historyBindingFor } from "./history-databases";
import { creditHistory, historyQueue, projects } from "./schema";
import { chunks, jsonList, name } from "./sql-helpers";

/** A queued bucket: [subject, entity id, day, credit, expavg_credit, expavg_time] (numbers as exact text). */
type QueuedBucket = [subject: CreditSubject, entityId: number, day: number, credit: string, avg: string, time: string];

export interface MovedBucket {
  readonly subject: CreditSubject;
  readonly entityId: number;
  readonly day: number;
  readonly credit: number;
  readonly expavgCredit: number;
  readonly expavgTime: number;
}

function parseQueuedBuckets(entries: string): MovedBucket[] {
  return (JSON.parse(entries) as QueuedBucket[]).map(([subject, entityId, day, credit, avg, time]) => ({
    subject,
    entityId,
    day,
    credit: Number(credit),
    expavgCredit: Number(avg),
    expavgTime: Number(time),
  }));
}

/** The ledger project row as a history database copies it (database: the ledger's binding, so no job there takes it for its own). */
export interface ProjectCopy {
  readonly id: number;
  readonly slug: string;
  readonly name: string;
  readonly createdAt: number;
  readonly dailyHistoryDays: number;
  readonly ledger: string;
}

/** Creates the project's copy row in a history database (once; its marks live there). */
function ensureCopy(copy: ProjectCopy): SQL {
  const p = projects;
  return sql`INSERT INTO ${p} (${name(p.id)}, ${name(p.slug)}, ${name(p.name)}, ${name(p.createdAt)}, ${name(p.expavgTime)}, ${name(p.dailyHistoryDays)}, ${name(p.database)})
    VALUES (${copy.id}, ${copy.slug}, ${copy.name}, ${copy.createdAt}, ${copy.createdAt}, ${copy.dailyHistoryDays}, ${copy.ledger}) ON CONFLICT DO NOTHING`;
}

/**
 * One history database's part of a move: the buckets of queue rows above its mark added, the
 * mark raised to `last`, and the copy's clock (expavg_time, what its roll-up measures age
 * on) moved to the latest bucket.
 */
function moveInto(copy: ProjectCopy, last: number, buckets: readonly (MovedBucket & { queueId: number })[]): SQL[] {
  const h = creditHistory;
  const p = projects;
  // Per queue row: a retry may carry rows a first attempt did not, beside rows it did.
  const notYet = sql`json_extract(j.value, '$[6]') > (SELECT ${name(p.historyMovedThrough)} FROM ${p} WHERE ${name(p.id)} = ${copy.id})`;
  const latest = buckets.reduce((t, b) => Math.max(t, b.expavgTime), 0);
  const v = (i: number) => sql.raw(`json_extract(j.value, '$[${i}]')`);
  return [
    ensureCopy(copy),
    ...chunks(buckets.map((b) => [b.subject, b.entityId, b.day, b.credit, b.expavgCredit, b.expavgTime, b.queueId])).map(
      (
        part,
      ) => sql`INSERT INTO ${h} (${name(h.projectId)}, ${name(h.subject)}, ${name(h.entityId)}, ${name(h.day)}, ${name(h.credit)}, ${name(h.expavgCredit)}, ${name(h.expavgTime)})
        SELECT ${copy.id}, ${v(0)}, ${v(1)}, ${v(2)}, ${v(3)}, ${v(4)}, ${v(5)} FROM json_each(${JSON.stringify(part)}) AS j WHERE ${notYet} ${bucketMerge(h)}`,
    ),
    sql`UPDATE ${p} SET ${name(p.historyMovedThrough)} = max(${name(p.historyMovedThrough)}, ${last}), ${name(p.expavgTime)} = max(${name(p.expavgTime)}, ${latest})
      WHERE ${name(p.id)} = ${copy.id}`,
  ];
}

export interface MoveReport {
  /** Queue rows (passes) moved. */
  readonly passes: number;
  /** Buckets written into history databases. */
  readonly buckets: number;
}

/**
 * Moves up to `maxRows` of one project's queue rows, oldest first: each history database's
 * buckets in one batch there (by the day each bucket is for), then one delete in the ledger.
 */
export async function moveHistory(
  ledger: Db,
  copy: ProjectCopy,
  targets: readonly HistoryDatabase[],
  open: (binding: string) => Db,
  maxRows: number,
): Promise<MoveReport> {
  const q = historyQueue;
  const rows = await ledger
    .select({ id: q.id, entries: q.entries })
    .from(q)
    .where(eq(q.projectId, copy.id))
    .orderBy(asc(q.id))
    .limit(maxRows);
  if (rows.length === 0) return { passes: 0, buckets: 0 };
  const last = rows.at(-1)!.id;
  const byBinding = new Map<string, (MovedBucket & { queueId: number })[]>(targets.map((t) => [t.binding, []]));
  for (const row of rows) {
    for (const b of parseQueuedBuckets(row.entries)) byBinding.get(historyBindingFor(targets, b.day))!.push({ ...b, queueId: row.id });
  }
  // Every history database gets the mark, with or without buckets: each one's mark then says
  // alone whether a queue row is in it.
  for (const [binding, buckets] of byBinding) await runBatch(open(binding), moveInto(copy, last, buckets));
  await runBatch(ledger, [sql`DELETE FROM ${q} WHERE ${name(q.projectId)} = ${copy.id} AND ${name(q.id)} <= ${last}`]);
  return { passes: rows.length, buckets: [...byBinding.values()].reduce((n, b) => n + b.length, 0) };
}

/** A queued bucket of one subject, as a history read merges it: its queue row decides which history database has it yet. */
export interface QueuedBucketRow {
  readonly queueId: number;
  readonly entityId: number;
  readonly day: number;
  readonly credit: string;
  readonly avg: string;
  readonly time: string;
}

/**
 * The finished buckets of `subject`'s `ids` still waiting in the project's history_queue, for a
 * history read to go into the batch that reads the totals (so the buckets and the live rows
 * beside them are from one moment): until the minute job moves them, they are part of the
 * history as much as the moved ones (docs/public-reads.md, history). `projectId` may be a subquery.
 */
export function queuedBucketsQuery(db: Db, projectId: number | SQL, subject: CreditSubject, ids: readonly number[]) {
  const q = historyQueue;
  const at = (i: number) => sql.raw(`json_extract(j.value, '$[${i}]')`);
  return db
    .select({
      queueId: q.id,
      entityId: sql<number>`${at(1)}`,
      day: sql<number>`${at(2)}`,
      credit: sql<string>`${at(3)}`,
      avg: sql<string>`${at(4)}`,
      time: sql<string>`${at(5)}`,
    })
    .from(q)
    .innerJoin(sql`json_each(${q.entries}) AS j`, sql`1`)
    .where(and(eq(q.projectId, projectId as number), sql`${at(0)} = ${subject}`, sql`${at(1)} IN ${jsonList(ids)}`));
}

/** A queued row as a bucket (its numbers stored as exact text). */
export const queuedBucket = (r: QueuedBucketRow) => ({
  day: r.day,
  credit: Number(r.credit),
  expavgCredit: Number(r.avg),
  expavgTime: Number(r.time),
});
