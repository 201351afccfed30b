/**
 * The history roll-up's statements (src/jobs/history-rollup.ts). One chunk is the first
 * `limit` day rows before the boundary at or after a cursor (subject, entity id), in primary-key
 * order: the same subquery picks them for the monthly upsert and for the delete, in one batch,
 * so each day row is added to its month exactly once however runs are cut short.
 */
import { type SQL, sql } from "drizzle-orm";
import { creditHistory, creditHistoryMonthly, projects } from "./schema";
import { name } from "./sql-helpers";
import { bucketMerge } from "./history-transitions";
import { raiseProjectMark } from "./retention";

export interface RollUpCursor {
  readonly subject: string;
  readonly entityId: number;
}

export const CURSOR_START: RollUpCursor = { subject: "", entityId: -1 };

const h = creditHistory;
const m = creditHistoryMonthly;

/** Months since 1970-01 of a day-number column: what monthOfDay (src/credit/history-months.ts) computes. */
const monthOf = (day: SQL) =>
  sql`((CAST(strftime('%Y', ${day} * 86400, 'unixepoch') AS INTEGER) - 1970) * 12 + CAST(strftime('%m', ${day} * 86400, 'unixepoch') AS INTEGER) - 1)`;

/** Raises the day before which reads show months (never lowers it), first in every chunk's batch. */
export function raiseMonthlyBefore(projectId: number, boundary: number): SQL {
  return raiseProjectMark(projectId, projects.historyMonthlyBefore, boundary);
}

/** Every day row before the boundary has been folded in: later runs skip the project until the boundary moves. */
export function markRolledUp(projectId: number, boundary: number): SQL {
  return raiseProjectMark(projectId, projects.historyRolledBefore, boundary);
}

/**
 * `WHERE` the chunk: by key (credit_history is a WITHOUT ROWID table), the first `limit` day
 * rows before the boundary from the cursor on, in primary-key order (an index range, no sort).
 */
function inChunk(projectId: number, boundary: number, from: RollUpCursor, limit: number): SQL {
  return sql`${name(h.projectId)} = ${projectId} AND (${name(h.subject)}, ${name(h.entityId)}, ${name(h.day)}) IN (
    SELECT ${name(h.subject)}, ${name(h.entityId)}, ${name(h.day)} FROM ${h} WHERE ${name(h.projectId)} = ${projectId}
      AND (${name(h.subject)}, ${name(h.entityId)}) >= (${from.subject}, ${from.entityId}) AND ${name(h.day)} < ${boundary}
    ORDER BY ${name(h.subject)}, ${name(h.entityId)}, ${name(h.day)} LIMIT ${limit})`;
}

/** The chunk's last (subject, entity id): where the next chunk starts (read before the delete). */
export function chunkEnd(projectId: number, boundary: number, from: RollUpCursor, limit: number): SQL {
  return sql`SELECT ${name(h.subject)} AS subject, ${name(h.entityId)} AS entityId FROM ${h}
    WHERE ${inChunk(projectId, boundary, from, limit)}
    ORDER BY ${name(h.subject)} DESC, ${name(h.entityId)} DESC LIMIT 1`;
}

/**
 * Adds the chunk's days to their months: credit summed, and the RAC pair of the latest time
 * (SQLite takes a bare column from the row of the single max()), merged with a monthly row
 * already there by the same rule (rollUp in src/credit/history-months.ts).
 */
export function foldChunk(projectId: number, boundary: number, from: RollUpCursor, limit: number): SQL {
  const columns = sql`(${name(m.projectId)}, ${name(m.subject)}, ${name(m.entityId)}, ${name(m.month)}, ${name(m.credit)}, ${name(m.expavgCredit)}, ${name(m.expavgTime)})`;
  return sql`INSERT INTO ${m} ${columns}
    SELECT ${name(h.projectId)}, ${name(h.subject)}, ${name(h.entityId)}, ${monthOf(name(h.day))} AS month,
      sum(${name(h.credit)}), ${name(h.expavgCredit)}, max(${name(h.expavgTime)})
    FROM ${h} WHERE ${inChunk(projectId, boundary, from, limit)}
    GROUP BY ${name(h.projectId)}, ${name(h.subject)}, ${name(h.entityId)}, month
    ${bucketMerge(m)}`;
}

export function deleteChunk(projectId: number, boundary: number, from: RollUpCursor, limit: number): SQL {
  return sql`DELETE FROM ${h} WHERE ${inChunk(projectId, boundary, from, limit)}`;
}
