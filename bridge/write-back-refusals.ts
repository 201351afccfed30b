/**
 * Where --write-back would be unsafe, the run refuses before writing anything (exit 2), each
 * time with the reason and the fix (docs/bridge.md, "Make Cobblestone the credit of record").
 */
import type mysql from "mysql2/promise";
import type { CobblestoneApi } from "./api-client";
import { BridgeError } from "./errors";
import type { Cursor } from "./rows";
import { SWITCH_TABLE, WRITEBACK_TABLE } from "./write-back-tables";

/** Every table the write-back changes, with a write that changes nothing (privileges are checked per statement). */
const PROBES: [string, string][] = [
  ["result", "UPDATE result SET granted_credit = granted_credit WHERE 1 = 0"],
  ["workunit", "UPDATE workunit SET canonical_credit = canonical_credit WHERE 1 = 0"],
  ["host", "UPDATE host SET total_credit = total_credit WHERE 1 = 0"],
  ["user", "UPDATE user SET total_credit = total_credit WHERE 1 = 0"],
  ["team", "UPDATE team SET total_credit = total_credit WHERE 1 = 0"],
];
const CREDIT_BY_APP_PROBES: [string, string][] = [
  ["credit_user", "UPDATE credit_user SET total = total WHERE 1 = 0"],
  ["credit_team", "UPDATE credit_team SET total = total WHERE 1 = 0"],
];

/** Why a credit mode cannot be written back yet. */
const MODES_NOT_WRITTEN: Record<string, string> = {
  fixed:
    "its credit comes from the workunit's canonical_credit (BOINC's --credit_from_wu), which the bridge does not send, so the service would grant 0",
  post_assigned: "its credit is the canonical result's claimed_credit, which the bridge does not send, so the service would grant 0",
};

/** A read-only server (a replica) or an account that may not write BOINC's tables: refused before anything is created. */
export async function refuseReadOnly(conn: mysql.Connection, creditByApp: boolean): Promise<void> {
  const [ro] = await conn.query("SELECT @@global.read_only AS ro");
  if (Number((ro as { ro: unknown }[])[0]!.ro) !== 0) {
    throw new BridgeError(
      "--write-back: this database server is read-only (read_only is ON: a replica?); point the bridge at the project's primary database (config.xml's db_host, not replica_db_host)",
    );
  }
  const denied: string[] = [];
  await conn.query("START TRANSACTION");
  try {
    for (const [table, sql] of [...PROBES, ...(creditByApp ? CREDIT_BY_APP_PROBES : [])]) {
      try {
        await conn.query(sql);
      } catch (e) {
        denied.push(`${table}: ${(e as Error).message}`);
      }
    }
  } finally {
    await conn.query("ROLLBACK");
  }
  if (denied.length > 0) {
    throw new BridgeError(
      `--write-back: this database account may not write what the write-back writes (a read-only account?). Give it UPDATE on result, workunit, host, user, team${creditByApp ? ", INSERT and UPDATE on credit_user and credit_team" : ""}, and CREATE and INSERT on ${WRITEBACK_TABLE} and ${SWITCH_TABLE} (docs/bridge.md, "Make Cobblestone the credit of record"):\n  ${denied.join("\n  ")}`,
    );
  }
}

/** Apps the write-back cannot pay, and results a validator still grants: refused before the first request. */
export async function refuseUnsafeWriteBack(
  conn: mysql.Connection,
  api: CobblestoneApi,
  cursor: Cursor,
  switchTime: number,
): Promise<void> {
  const apps = await api.apps();
  const refused = apps.filter((a) => a.credit_mode in MODES_NOT_WRITTEN);
  if (refused.length > 0) {
    throw new BridgeError(
      `--write-back: ${refused.map((a) => `app '${a.name}' (credit_mode ${a.credit_mode}): ${MODES_NOT_WRITTEN[a.credit_mode]}`).join("; ")}. Leave such a project on BOINC's own credit (no --write-back).`,
    );
  }

  // Granted after the switch point (and the cursor) by someone else than the bridge: the validator still grants.
  const [granted] = await conn.query(
    `SELECT r.id FROM result r LEFT JOIN ${WRITEBACK_TABLE} c ON c.result_id = r.id
     WHERE (r.mod_time > FROM_UNIXTIME(?) OR (r.mod_time = FROM_UNIXTIME(?) AND r.id > ?)) AND r.mod_time >= FROM_UNIXTIME(?)
       AND r.outcome = 1 AND r.validate_state = 1 AND r.granted_credit <> 0 AND c.result_id IS NULL
     ORDER BY r.mod_time, r.id LIMIT 5`,
    [cursor.mod_time, cursor.mod_time, cursor.id, switchTime],
  );
  const ids = (granted as { id: number }[]).map((r) => r.id);
  if (ids.length > 0) {
    throw new BridgeError(
      `--write-back: results validated after the switch point (${new Date(switchTime * 1000).toISOString()}) already have credit the bridge did not write (result ${ids.join(", ")}): a validator still grants. Restart every validator with --no_credit (docs/bridge.md, "Make Cobblestone the credit of record"); nothing was written`,
    );
  }
}
