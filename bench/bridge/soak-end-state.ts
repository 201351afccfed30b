/**
 * The soak's database at the end (daemons stopped, the bridge caught up and stopped), joined
 * with db_purge's records (soak-records.ts) into one view of every result and every row the
 * bridge ever wrote, purged ones included.
 */
import type mysql from "mysql2/promise";
import { WRITEBACK_TABLE } from "../../bridge/database/write-back-tables";
import { RESULT_FIELDS_SQL, type Records, type ResultFields, type WritebackRow, resultFields } from "./soak-records";

export interface ResultState extends ResultFields {
  /** Gone from the database: db_purge deleted it (the values are those it read). */
  purged: boolean;
}

export interface Holder {
  total: number;
  expavg: number;
  expavgTime: number;
}

export interface EndState {
  /** Every result the daemons created that is still present or was purged. */
  results: Map<number, ResultState>;
  /** canonical_credit of the workunits still present. */
  workunits: Map<number, number>;
  /** Every row the bridge wrote: those in its table now, and those db_purge read before deleting their result. */
  written: Map<number, WritebackRow & { wu: number }>;
  /** The results whose rows are in cobblestone_writeback now. */
  tableIds: Set<number>;
  holders: Holders;
  /** The same before the soak (the credit BOINC had granted). */
  before: Holders;
}

export async function readEndState(conn: mysql.Connection, records: Records, before: Holders): Promise<EndState> {
  const results = new Map<number, ResultState>();
  for (const p of records.purged.values()) {
    const { kind: _kind, canonicalCredit: _canonical, writeback: _writeback, at: _at, ...fields } = p;
    results.set(p.id, { ...fields, purged: true });
  }
  const [resultRows] = await conn.query(`SELECT ${RESULT_FIELDS_SQL} FROM result`);
  for (const r of resultRows as Record<string, unknown>[]) {
    results.set(Number(r.id), { ...resultFields(r), purged: false });
  }
  const [wuRows] = await conn.query("SELECT id, canonical_credit FROM workunit");
  const workunits = new Map((wuRows as Record<string, number>[]).map((w) => [Number(w.id), Number(w.canonical_credit)]));

  const written = new Map<number, WritebackRow & { wu: number }>();
  for (const p of records.purged.values()) if (p.writeback) written.set(p.id, { ...p.writeback, wu: p.wu });
  const wbRows = await conn
    .query(`SELECT result_id, workunit_id, credit, grant_time, UNIX_TIMESTAMP(written_at) AS written_at FROM ${WRITEBACK_TABLE}`)
    .then(
      ([rows]) => rows as Record<string, number>[],
      // A bridge that never wrote has no table: nothing was written.
      (e: { code?: string }) => {
        if (e.code === "ER_NO_SUCH_TABLE") return [];
        throw e;
      },
    );
  const tableIds = new Set<number>();
  for (const r of wbRows) {
    const id = Number(r.result_id);
    tableIds.add(id);
    written.set(id, {
      credit: Number(r.credit),
      grantTime: Number(r.grant_time),
      writtenAt: Number(r.written_at),
      wu: Number(r.workunit_id),
    });
  }

  return { results, workunits, written, tableIds, holders: await readHolders(conn), before };
}

export type Holders = Record<"host" | "user" | "team", Map<number, Holder>>;

/** Every host's, user's and team's credit columns (at the start, and at the end). */
export async function readHolders(conn: mysql.Connection): Promise<Holders> {
  const holders: Holders = { host: new Map(), user: new Map(), team: new Map() };
  for (const table of ["host", "user", "team"] as const) {
    const [rows] = await conn.query(`SELECT id, total_credit, expavg_credit, expavg_time FROM \`${table}\``);
    for (const r of rows as Record<string, number>[]) {
      holders[table].set(Number(r.id), {
        total: Number(r.total_credit),
        expavg: Number(r.expavg_credit),
        expavgTime: Number(r.expavg_time),
      });
    }
  }
  return holders;
}
