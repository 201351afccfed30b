/**
 * The write-back's safety net (docs/bridge.md, "Unpaid results"): validated results that nobody
 * paid, counted from BOINC's own tables without trusting the bridge's cursor. A result is
 * unpaid when it is a valid success reported from the switch point on (so no validator may pay
 * it: switch-decision.ts), its granted_credit is 0, the bridge's table has no row for it (a
 * result the service granted 0 has one), and it was validated over UNPAID_AFTER_SECONDS ago by
 * the database's clock (the validator stamps mod_time when it validates, later daemons only
 * move it later), long past the moment the bridge should have written it.
 */
import { OUTCOME, VALIDATE_STATE } from "../database/boinc-codes";
import { SWITCH_TABLE, WRITEBACK_TABLE } from "../database/write-back-tables";

/** A result validated this long ago and still unpaid is counted: --follow writes within seconds, a run from cron within minutes. */
export const UNPAID_AFTER_SECONDS = 300;

/** What a count or a read needs of a connection or a pool (mysql2's `query`). */
export interface Queryable {
  query(sql: string, values?: unknown): Promise<[unknown, unknown]>;
}

/** A valid success of the result table `r`. */
export const VALID = `r.outcome = ${OUTCOME.success} AND r.validate_state = ${VALIDATE_STATE.valid}`;

/**
 * The unpaid results of `result r`; its values are the switch point (Unix seconds) and the age
 * in seconds. BOINC has no index on these columns: a scan of the result table, whose rows that
 * match (valid, granted 0, after the switch) are each looked up in the bridge's table by key.
 */
export const UNPAID = `${VALID} AND r.granted_credit = 0 AND r.received_time >= ?
  AND r.mod_time < NOW() - INTERVAL ? SECOND
  AND NOT EXISTS (SELECT 1 FROM ${WRITEBACK_TABLE} w WHERE w.result_id = r.id)`;

/** How many results are unpaid now (one scan of the result table). */
export async function countUnpaid(db: Queryable, switchTime: number, ageSeconds = UNPAID_AFTER_SECONDS): Promise<number> {
  const [rows] = await db.query(`SELECT COUNT(*) AS n FROM result r WHERE ${UNPAID}`, [switchTime, ageSeconds]);
  return Number((rows as { n: unknown }[])[0]!.n);
}

/** The switch point a --write-back run stored for `project`, or null when none did (no table, or no row). */
export async function storedSwitchPoint(db: Queryable, project: string): Promise<number | null> {
  try {
    const [rows] = await db.query(`SELECT switch_time FROM ${SWITCH_TABLE} WHERE project = ?`, [project]);
    const row = (rows as { switch_time: unknown }[])[0];
    return row ? Number(row.switch_time) : null;
  } catch (e) {
    if ((e as { code?: string }).code === "ER_NO_SUCH_TABLE") return null;
    throw e;
  }
}
