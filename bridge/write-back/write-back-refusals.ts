/**
 * Where --write-back would be unsafe, the run refuses before writing anything (exit 2), each
 * time with the reason and the fix (docs/bridge.md, "Make Cobblestone the credit of record").
 */
import type mysql from "mysql2/promise";
import { BridgeError } from "../shared/errors";
import type { BoincDb, ResultKey } from "../database/boinc-db";
import { grantedBeforeSwitch } from "./switch-decision";
import { refuseMissingPrivileges } from "./write-back-privileges";

/** A read-only server (a replica), or an account without a privilege the write-back uses: refused before anything is created. */
export async function refuseReadOnly(conn: mysql.Connection, creditByApp: boolean): Promise<void> {
  const [ro] = await conn.query("SELECT @@global.read_only AS ro");
  if (Number((ro as { ro: unknown }[])[0]!.ro) !== 0) {
    throw new BridgeError(
      "--write-back: this database server is read-only (read_only is ON: a replica?); point the bridge at the project's primary database (config.xml's db_host, not replica_db_host)",
    );
  }
  await refuseMissingPrivileges(conn, creditByApp);
}

/**
 * Results a validator still grants: valid successes reported from the switch point on that already
 * have credit the bridge did not write (switch-decision.ts). Checked on each scan's keys
 * (boinc-db.ts reads whether a row has credit in the scan that orders the rows, so BOINC's result
 * table is not scanned once more for this), before any row of the scan is read or posted: a run
 * whose rows fit in one scan (up to 100,000) refuses before it writes anything, a longer one
 * before it writes anything of the scan that holds such a result. A result is never credited
 * twice either way: the write-back's transaction reads each result's granted_credit again under
 * its row lock (write-back.ts).
 */
export async function refuseGrantedByOthers(db: Pick<BoincDb, "writtenBack">, keys: ResultKey[], switchTime: number): Promise<void> {
  const granted = keys.filter((k) => k.granted && !grantedBeforeSwitch(k, switchTime));
  if (granted.length === 0) return;
  const written = await db.writtenBack(granted.map((k) => k.id));
  const ids = granted
    .filter((k) => !written.has(k.id))
    .slice(0, 5)
    .map((k) => k.id);
  if (ids.length > 0) {
    throw new BridgeError(
      `--write-back: results validated after the switch point (${new Date(switchTime * 1000).toISOString()}) already have credit the bridge did not write (result ${ids.join(", ")}): a validator still grants (their clients reported them from the switch point on, so none was validated before it); the bridge stopped before posting or writing any of them. Restart every validator with --no_credit (docs/bridge.md, "Make Cobblestone the credit of record")`,
    );
  }
}
