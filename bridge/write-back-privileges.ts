/**
 * Every privilege --write-back uses, tried before it writes anything, each with a statement that
 * changes nothing (`WHERE 1 = 0`, in a transaction rolled back): a missing one would otherwise
 * show up mid-transaction as a generic error. What is missing is named all at once, each with
 * the GRANT that gives it (docs/bridge.md, "Switch-over checklist").
 */
import type mysql from "mysql2/promise";
import { BridgeError } from "./errors";
import { grantStatement, inGrantOrder, whoAndWhere } from "./grants";
import { SWITCH_TABLE, WRITEBACK_TABLE } from "./write-back-tables";

type Privilege = "SELECT" | "INSERT" | "UPDATE" | "DELETE" | "CREATE";

/** The bridge's own tables: created by its first --write-back run (write-back-tables.ts). */
const OWN = [WRITEBACK_TABLE, SWITCH_TABLE];

interface Probe {
  table: string;
  privilege: Privilege;
  /** Needs just `privilege` on `table` (and SELECT on the columns it reads), and changes nothing. */
  sql: string;
  /**
   * A locking read: MySQL 8 wants SELECT plus one of UPDATE, DELETE or LOCK TABLES for SELECT …
   * FOR UPDATE (MariaDB SELECT alone); this is the one the write-back needs on the table anyway.
   */
  lockedWith?: Privilege;
}

const quoted = (table: string) => `\`${table}\``;
const lockingRead = (table: string, columns: string[], lockedWith: Privilege): Probe => ({
  table,
  privilege: "SELECT",
  sql: `SELECT ${columns.join(", ")} FROM ${quoted(table)} WHERE 1 = 0 FOR UPDATE`,
  lockedWith,
});
const read = (table: string, columns: string[]): Probe => ({
  table,
  privilege: "SELECT",
  sql: `SELECT ${columns.join(", ")} FROM ${quoted(table)} WHERE 1 = 0`,
});
const update = (table: string, columns: string[]): Probe => ({
  table,
  privilege: "UPDATE",
  sql: `UPDATE ${quoted(table)} SET ${columns.map((c) => `${c} = ${c}`).join(", ")} WHERE 1 = 0`,
});
const insert = (table: string, columns: string[]): Probe => ({
  table,
  privilege: "INSERT",
  sql: `INSERT INTO ${quoted(table)} (${columns.join(", ")}) SELECT ${columns.map(() => "0").join(", ")} FROM DUAL WHERE 1 = 0`,
});
const remove = (table: string): Probe => ({ table, privilege: "DELETE", sql: `DELETE FROM ${quoted(table)} WHERE 1 = 0` });

const HOLDER_COLUMNS = ["total_credit", "expavg_credit", "expavg_time"];
const BY_APP_COLUMNS = ["appid", "credit_type", "total", "expavg", "expavg_time", "njobs"];

/** The columns write-back.ts reads (under row locks) and writes, per table. */
function probes(creditByApp: boolean): Probe[] {
  const boinc: Probe[] = [
    lockingRead("result", ["id", "hostid", "validate_state", "outcome", "granted_credit", "mod_time"], "UPDATE"),
    update("result", ["granted_credit", "mod_time"]),
    lockingRead("workunit", ["id", "canonical_credit"], "UPDATE"),
    update("workunit", ["canonical_credit"]),
    lockingRead("host", ["id", "userid", ...HOLDER_COLUMNS], "UPDATE"),
    update("host", HOLDER_COLUMNS),
    lockingRead("user", ["id", "teamid", ...HOLDER_COLUMNS], "UPDATE"),
    update("user", HOLDER_COLUMNS),
    lockingRead("team", ["id", ...HOLDER_COLUMNS], "UPDATE"),
    update("team", HOLDER_COLUMNS),
  ];
  const byApp = (table: string, holder: string): Probe[] => [
    lockingRead(table, [holder, ...BY_APP_COLUMNS], "UPDATE"),
    update(table, ["total", "expavg", "expavg_time", "njobs"]),
    insert(table, [holder, ...BY_APP_COLUMNS]),
  ];
  const own: Probe[] = [
    lockingRead(WRITEBACK_TABLE, ["result_id", "workunit_id", "credit", "grant_time", "written_at"], "DELETE"),
    insert(WRITEBACK_TABLE, ["result_id", "workunit_id", "credit", "grant_time"]),
    remove(WRITEBACK_TABLE),
    read(SWITCH_TABLE, ["project", "switch_time", "set_at"]),
    insert(SWITCH_TABLE, ["project", "switch_time"]),
  ];
  return [...boinc, ...(creditByApp ? [...byApp("credit_user", "userid"), ...byApp("credit_team", "teamid")] : []), ...own];
}

/** The server's "command denied" answers. */
const DENIED = new Set([
  "ER_TABLEACCESS_DENIED_ERROR",
  "ER_COLUMNACCESS_DENIED_ERROR",
  "ER_DBACCESS_DENIED_ERROR",
  "ER_SPECIFIC_ACCESS_DENIED_ERROR",
]);

/**
 * "ok", "denied", or "absent": the server checks the privilege before it opens the table, so a
 * table that is not there (the bridge's own, before its first run) answers "absent" only to an
 * account that has the privilege.
 */
async function attempt(conn: mysql.Connection, sql: string): Promise<"ok" | "denied" | "absent"> {
  try {
    await conn.query(sql);
    return "ok";
  } catch (e) {
    const code = (e as { code?: string }).code ?? "";
    if (DENIED.has(code)) return "denied";
    if (code === "ER_NO_SUCH_TABLE") return "absent";
    throw e;
  }
}

/**
 * CREATE on a table that may not be there, without creating it: a definition with its column
 * twice fails after the privilege check (ER_DUP_FIELDNAME) and before anything is made.
 */
async function mayCreate(conn: mysql.Connection, table: string): Promise<boolean> {
  try {
    await conn.query(`CREATE TABLE ${quoted(table)} (probe INT, probe INT)`);
  } catch (e) {
    const code = (e as { code?: string }).code ?? "";
    if (code === "ER_DUP_FIELDNAME" || code === "ER_TABLE_EXISTS_ERROR") return true;
    if (DENIED.has(code)) return false;
    throw e;
  }
  throw new BridgeError(`--write-back: the server created ${table} from a definition with a column twice; drop it (DROP TABLE ${table})`);
}

/** Refuses (exit 2) naming every privilege the write-back would miss, with the GRANT that gives it; writes nothing. */
export async function refuseMissingPrivileges(conn: mysql.Connection, creditByApp: boolean): Promise<void> {
  const { account, database } = await whoAndWhere(conn);
  /** Per table, in the order first met: the privileges it lacks, and why where it is not plain. */
  const missing = new Map<string, { privileges: Privilege[]; notes: string[] }>();
  const lack = (table: string, privilege: Privilege, note?: string) => {
    const entry = missing.get(table) ?? { privileges: [], notes: [] };
    if (!entry.privileges.includes(privilege)) entry.privileges.push(privilege);
    if (note) entry.notes.push(note);
    missing.set(table, entry);
  };
  /** Tables a probe found there, and not there (the server answers so only to an account with the privilege). */
  const present = new Set<string>();
  const absent = new Set<string>();
  const problems: string[] = [];
  await conn.query("START TRANSACTION");
  try {
    for (const probe of probes(creditByApp)) {
      const answer = await attempt(conn, probe.sql);
      if (answer === "ok") present.add(probe.table);
      if (answer === "absent") absent.add(probe.table);
      if (answer !== "denied") continue;
      // A locking read refused while the plain read is allowed: MySQL's lock privilege.
      if (probe.lockedWith && (await attempt(conn, probe.sql.replace(/ FOR UPDATE$/, ""))) !== "denied") {
        lack(probe.table, probe.lockedWith, `MySQL wants ${probe.lockedWith} for SELECT … FOR UPDATE`);
      } else {
        lack(probe.table, probe.privilege);
      }
    }
  } finally {
    await conn.query("ROLLBACK");
  }
  for (const table of absent) {
    if (!OWN.includes(table)) problems.push(`table ${table} is missing: --credit-by-app writes BOINC's credit_user and credit_team`);
  }
  // The bridge's tables not seen there (missing, or every probe denied): CREATE. After the
  // transaction: CREATE TABLE commits whatever is open, even when it fails.
  const unseen = OWN.filter((table) => !present.has(table));
  for (const table of unseen) if (!(await mayCreate(conn, table))) lack(table, "CREATE");
  if (missing.size + problems.length > 0) {
    const lines = [...missing].map(([table, { privileges, notes }]) => {
      // A table not there yet is named in a GRANT only together with CREATE.
      const creates = unseen.includes(table);
      if (creates) {
        notes.push(
          absent.has(table)
            ? "the table is not there yet: the bridge creates it, and a GRANT names it only with CREATE"
            : "this account sees nothing of the table: with CREATE the GRANT works whether it is there or not",
        );
      }
      const grant = grantStatement(creates ? ["CREATE", ...privileges] : privileges, database, table, account);
      return `${table}: no ${inGrantOrder(privileges).join(", ")}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}: ${grant}`;
    });
    throw new BridgeError(
      `--write-back: this database account may not write what the write-back writes (a read-only account?); nothing was written. What ${account} lacks in database ${database}, and the GRANT that gives it (run them as the database's owner; docs/bridge.md, "Switch-over checklist"):\n  ${[...problems, ...lines].join("\n  ")}`,
    );
  }
}
