/**
 * Keeps `cobblestone_writeback` bounded (docs/bridge.md, "What the bridge's table keeps"): a row
 * is deleted once its result is gone from BOINC's result table (db_purge removed it). Such a
 * result can never be read, posted or written again, so exactly-once and the switch decision
 * (switch-decision.ts) never need its row; a row whose result still exists is kept, however old,
 * because the result can come back to the bridge (a daemon moving its mod_time) and must then
 * be found written.
 *
 * Each statement is short and on its own (autocommit): the reads of `result` are consistent
 * reads, which take no locks, and the deletes lock only rows of the bridge's own table, which no
 * BOINC daemon touches. A prune killed at any point has deleted some such rows, or none.
 */
import type mysql from "mysql2/promise";
import { WRITEBACK_TABLE } from "../database/write-back-tables";

/** Rows looked at per statement: a few ms each. */
const BATCH = 1000;

export interface PruneStep {
  /** Rows deleted by this step. */
  deleted: number;
  /** Where the sweep goes on next time (a result id; 0: from the start). */
  sweepAfter: number;
}

/**
 * One bounded step of the prune: the rows below the oldest result still in BOINC's table
 * (db_purge removes the oldest first), then up to `batches` batches of the sweep over the rest,
 * from `sweepAfter` (it starts again at the beginning when it reaches the end).
 */
export async function pruneStep(conn: mysql.Connection, sweepAfter: number, batches: number): Promise<PruneStep> {
  let deleted = 0;
  const [oldest] = await conn.query("SELECT MIN(id) AS id FROM result");
  const minId = (oldest as { id: number | null }[])[0]!.id;
  // An empty result table: every row's result is gone.
  const below = minId === null ? Number.MAX_SAFE_INTEGER : Number(minId);
  for (let i = 0; i < batches; i++) {
    const [done] = await conn.query(`DELETE FROM ${WRITEBACK_TABLE} WHERE result_id < ? ORDER BY result_id LIMIT ?`, [below, BATCH]);
    const n = (done as mysql.ResultSetHeader).affectedRows;
    deleted += n;
    if (n < BATCH) break;
  }
  let after = Math.max(sweepAfter, below - 1);
  for (let i = 0; i < batches; i++) {
    const [rows] = await conn.query(
      `SELECT w.result_id AS id, r.id IS NULL AS gone FROM ${WRITEBACK_TABLE} w LEFT JOIN result r ON r.id = w.result_id
       WHERE w.result_id > ? ORDER BY w.result_id LIMIT ?`,
      [after, BATCH],
    );
    const seen = rows as { id: number; gone: number }[];
    const gone = seen.filter((r) => Number(r.gone) === 1).map((r) => Number(r.id));
    if (gone.length > 0) {
      const [done] = await conn.query(`DELETE FROM ${WRITEBACK_TABLE} WHERE result_id IN (?)`, [gone]);
      deleted += (done as mysql.ResultSetHeader).affectedRows;
    }
    if (seen.length < BATCH) return { deleted, sweepAfter: 0 };
    after = Number(seen.at(-1)!.id);
  }
  return { deleted, sweepAfter: after };
}
