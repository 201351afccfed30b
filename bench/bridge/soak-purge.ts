/**
 * db_purge for the soak: workunits whose results are all decided and file-deleted, and untouched
 * for `purgeAfterS`, are deleted with their results. As db_purge archives what it deletes, each
 * deleted result is recorded, with the bridge's cobblestone_writeback row of it as it stood at
 * the delete: the soak's end checks count the credit of purged results from these records.
 *
 * Why the record is complete: the purge locks the result rows (FOR UPDATE) before it reads the
 * bridge's rows, and the bridge's write-back locks the same result rows before it writes their
 * credit and inserts its rows, committing both together. So a write-back either committed
 * before the purge took the locks (the purge's read, READ COMMITTED, sees its rows) or reads
 * the results after the delete and writes nothing for them ("gone from the database").
 */
import type mysql from "mysql2/promise";
import { WRITEBACK_TABLE } from "../../bridge/database/write-back-tables";
import { type DaemonDb, connectionLost } from "./soak-daemon-db";
import { type DaemonCounts, type PurgedRecord, RESULT_FIELDS_SQL, type SoakRecord, type WritebackRow, resultFields } from "./soak-records";

const BATCH = 500;

export class Purge {
  /** Rows deleted by a transaction whose COMMIT got no answer: recorded once the rows are seen gone. */
  private unsure: PurgedRecord[] = [];

  constructor(
    private readonly db: DaemonDb,
    private readonly purgeAfterS: number,
    private readonly record: (r: SoakRecord) => void,
    private readonly counts: DaemonCounts,
  ) {}

  async tick(): Promise<void> {
    if (this.unsure.length > 0) await this.settleUnsure();
    const candidates = await this.db.query<{ id: number }[]>(
      `SELECT w.id FROM workunit w WHERE w.need_validate = 0 AND w.canonical_resultid > 0
         AND NOT EXISTS (SELECT 1 FROM result r WHERE r.workunitid = w.id
           AND (r.file_delete_state <> 2 OR r.mod_time >= NOW() - INTERVAL ? SECOND))
       ORDER BY w.id LIMIT ${BATCH}`,
      [this.purgeAfterS],
    );
    if (candidates.length === 0) return;
    const wus = candidates.map((w) => Number(w.id));
    let deleted: PurgedRecord[] = [];
    try {
      deleted = await this.db.transaction((conn) => this.deleteRows(conn, wus, (r) => (deleted = r)));
    } catch (e) {
      if (!connectionLost(e)) throw e;
      // The COMMIT may have happened: the rows read under lock are recorded if they turn out gone.
      this.unsure.push(...deleted);
      return;
    }
    for (const r of deleted) this.record(r);
    this.counts.purgedResults += deleted.length;
    this.counts.purgedWorkunits += new Set(deleted.map((r) => r.wu)).size;
  }

  private async deleteRows(conn: mysql.Connection, wus: number[], read: (r: PurgedRecord[]) => void): Promise<PurgedRecord[]> {
    const [idRows] = await conn.query("SELECT id FROM result WHERE workunitid IN (?) ORDER BY id", [wus]);
    const ids = (idRows as { id: number }[]).map((r) => Number(r.id));
    if (ids.length === 0) return [];
    const [resultRows] = await conn.query(`SELECT ${RESULT_FIELDS_SQL} FROM result WHERE id IN (?) ORDER BY id FOR UPDATE`, [ids]);
    const [wuRows] = await conn.query("SELECT id, canonical_credit FROM workunit WHERE id IN (?) ORDER BY id FOR UPDATE", [wus]);
    const canonical = new Map(
      (wuRows as { id: number; canonical_credit: number }[]).map((w) => [Number(w.id), Number(w.canonical_credit)]),
    );
    const written = await this.writebackRows(conn, ids);
    const at = Date.now();
    const records: PurgedRecord[] = (resultRows as Record<string, number>[]).map((r) => ({
      kind: "purged",
      ...resultFields(r),
      canonicalCredit: canonical.get(Number(r.workunitid)) ?? 0,
      writeback: written.get(Number(r.id)) ?? null,
      at,
    }));
    read(records);
    await conn.query("DELETE FROM result WHERE id IN (?)", [ids]);
    await conn.query("DELETE FROM workunit WHERE id IN (?)", [wus]);
    return records;
  }

  private async writebackRows(conn: mysql.Connection, ids: number[]): Promise<Map<number, WritebackRow>> {
    try {
      const [rows] = await conn.query(
        `SELECT result_id, credit, grant_time, UNIX_TIMESTAMP(written_at) AS written_at FROM ${WRITEBACK_TABLE} WHERE result_id IN (?)`,
        [ids],
      );
      return new Map(
        (rows as Record<string, number>[]).map((r) => [
          Number(r.result_id),
          { credit: Number(r.credit), grantTime: Number(r.grant_time), writtenAt: Number(r.written_at) },
        ]),
      );
    } catch (e) {
      // Before the bridge's first write-back run there is no table, and nothing written.
      if ((e as { code?: string }).code === "ER_NO_SUCH_TABLE") return new Map();
      throw e;
    }
  }

  private async settleUnsure(): Promise<void> {
    const present = await this.db.query<{ id: number }[]>("SELECT id FROM result WHERE id IN (?)", [this.unsure.map((r) => r.id)]);
    const still = new Set(present.map((r) => Number(r.id)));
    for (const r of this.unsure) {
      if (still.has(r.id)) continue;
      this.record(r);
      this.counts.purgedResults++;
    }
    this.unsure = [];
  }
}
