/**
 * Every privilege --write-back uses, tried before it writes anything, each with a statement that
 * changes nothing (`WHERE 1 = 0`, in a transaction rolled back): a missing one would otherwise
 * show up mid-transaction as a generic error. What is missing is named all at once, each with
 * the GRANT that gives it (docs/bridge.md, "Switch-over checklist").
 *
 * Least privilege: in BOINC's tables the write-back may UPDATE only the credit columns it writes
 * (column-level GRANTs), so the account it runs as cannot change a password, an authenticator or
 * a result's state. `TABLES` below is what write-back.ts (and canonical-repair.ts,
 * write-back-prune.ts) read and write, column by column; a test of its own keeps the two in step.
 */
import type mysql from "mysql2/promise";
import { openConnection } from "../database/boinc-db";
import { BridgeError } from "../shared/errors";
import { type GrantColumns, grantStatement, privilegeList, whoAndWhere } from "../database/grants";
import { SWITCH_TABLE, WRITEBACK_TABLE } from "../database/write-back-tables";

type Privilege = "SELECT" | "INSERT" | "UPDATE" | "DELETE" | "CREATE";

/** What the write-back does with one table. */
export interface TableNeeds {
  table: string;
  /** Columns read under row locks (SELECT … FOR UPDATE). */
  locked?: readonly string[];
  /**
   * On MySQL 8 a locking read wants SELECT plus one of UPDATE, DELETE or LOCK TABLES on the table
   * (a column-level UPDATE of any of its columns counts); MariaDB asks SELECT alone. The one the
   * write-back holds on the table anyway.
   */
  lockedWith?: "UPDATE" | "DELETE";
  /** Columns read without a lock, the ones an UPDATE reads (`total_credit = total_credit + …`) among them. */
  read?: readonly string[];
  /** The columns it UPDATEs: a column-level GRANT, in the checklist's order. */
  update?: readonly string[];
  /** The columns it INSERTs (the GRANT is for the table: they are all of a row the write-back adds). */
  insert?: readonly string[];
  delete?: boolean;
}

const HOLDER = ["total_credit", "expavg_credit", "expavg_time"] as const;
const BY_APP = ["total", "expavg", "expavg_time", "njobs"] as const;
const byApp = (table: string, holder: string): TableNeeds => ({
  table,
  locked: [holder, "appid", "expavg", "expavg_time", "credit_type"],
  lockedWith: "UPDATE",
  read: ["total", "njobs"],
  update: BY_APP,
  insert: [holder, "appid", "njobs", "total", "expavg", "expavg_time", "credit_type"],
});

/** Every table the write-back touches, and how (write-back.ts's statements, column by column). */
export function writeBackTables(creditByApp: boolean): TableNeeds[] {
  return [
    {
      table: "result",
      locked: ["id", "hostid", "validate_state", "outcome", "granted_credit", "received_time"],
      lockedWith: "UPDATE",
      // mod_time: the UPDATE sets it to itself, so the row keeps the time it was validated.
      read: ["mod_time"],
      update: ["granted_credit", "mod_time"],
    },
    // The canonical_credit repair reads the workunit (no lock) and writes it back.
    { table: "workunit", read: ["id", "appid", "canonical_credit"], update: ["canonical_credit"] },
    {
      table: "host",
      locked: ["id", "userid", "expavg_credit", "expavg_time"],
      lockedWith: "UPDATE",
      read: ["total_credit"],
      update: HOLDER,
    },
    {
      table: "user",
      locked: ["id", "teamid", "expavg_credit", "expavg_time"],
      lockedWith: "UPDATE",
      read: ["total_credit"],
      update: HOLDER,
    },
    { table: "team", locked: ["id", "expavg_credit", "expavg_time"], lockedWith: "UPDATE", read: ["total_credit"], update: HOLDER },
    ...(creditByApp ? [byApp("credit_user", "userid"), byApp("credit_team", "teamid")] : []),
    {
      table: WRITEBACK_TABLE,
      locked: ["result_id"],
      lockedWith: "DELETE",
      read: ["workunit_id", "credit"],
      insert: ["result_id", "workunit_id", "credit", "grant_time"],
      delete: true,
    },
    { table: SWITCH_TABLE, read: ["project", "switch_time"], insert: ["project", "switch_time"] },
  ];
}

/**
 * Trickle credit's write-back (trickle-write-back.ts) besides the holders: it locks the batch's
 * messages and marks them handled. Probed only when the run pays trickles.
 */
export const TRICKLE_TABLES: TableNeeds[] = [
  {
    table: "msg_from_host",
    locked: ["id", "handled"],
    lockedWith: "UPDATE",
    read: ["hostid", "create_time", "variety", "xml"],
    update: ["handled"],
  },
];

/** The bridge's own tables: created by its first --write-back run (write-back-tables.ts). */
const OWN = [WRITEBACK_TABLE, SWITCH_TABLE];

const quoted = (name: string) => `\`${name}\``;
const select = (table: string, columns: readonly string[], lock: boolean) =>
  `SELECT ${columns.map(quoted).join(", ")} FROM ${quoted(table)} WHERE 1 = 0${lock ? " FOR UPDATE" : ""}`;
/**
 * An UPDATE of `columns` that reads nothing: a constant each (SELECT is tried by the reads),
 * so a refusal is the UPDATE's. BOINC's mod_time is a TIMESTAMP, every other column a number.
 */
const updateOf = (table: string, columns: readonly string[]) =>
  `UPDATE ${quoted(table)} SET ${columns.map((c) => `${quoted(c)} = ${c === "mod_time" ? "CURRENT_TIMESTAMP" : "0"}`).join(", ")} WHERE 1 = 0`;
const insertOf = (table: string, columns: readonly string[]) =>
  `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(", ")}) SELECT ${columns.map(() => "0").join(", ")} FROM DUAL WHERE 1 = 0`;

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

/** What one table lacks: its privileges, the columns of the column-level ones, and why where it is not plain. */
interface Lack {
  privileges: Privilege[];
  columns: Record<string, string[]>;
  notes: string[];
}

/**
 * Refuses (exit 2) naming every privilege the write-back would miss, with the GRANT that gives it; writes nothing.
 * `tables`: what to probe (default: the write-back of results; TRICKLE_TABLES for trickle credit's).
 */
export async function refuseMissingPrivileges(
  conn: mysql.Connection,
  creditByApp: boolean,
  tables: TableNeeds[] = writeBackTables(creditByApp),
): Promise<void> {
  const { account, database } = await whoAndWhere(conn);
  /** Per table, in the order first met. */
  const missing = new Map<string, Lack>();
  const lack = (table: string, privilege: Privilege, columns: readonly string[] = [], note?: string) => {
    const entry = missing.get(table) ?? { privileges: [], columns: {}, notes: [] };
    if (!entry.privileges.includes(privilege)) entry.privileges.push(privilege);
    if (columns.length > 0) {
      const had = entry.columns[privilege] ?? [];
      entry.columns[privilege] = tables.find((t) => t.table === table)!.update!.filter((c) => had.includes(c) || columns.includes(c));
    }
    if (note) entry.notes.push(note);
    missing.set(table, entry);
  };
  /** Tables a probe found there, and not there (the server answers so only to an account with the privilege). */
  const present = new Set<string>();
  const absent = new Set<string>();
  const problems: string[] = [];
  const tried = (table: string, answer: "ok" | "denied" | "absent") => {
    if (answer === "ok") present.add(table);
    if (answer === "absent") absent.add(table);
    return answer;
  };
  await conn.query("START TRANSACTION");
  try {
    for (const t of tables) {
      if (t.locked && tried(t.table, await attempt(conn, select(t.table, t.locked, true))) === "denied") {
        // A locking read refused while the plain read is allowed: MySQL's lock privilege.
        if (t.lockedWith && (await attempt(conn, select(t.table, t.locked, false))) !== "denied") {
          const what = t.lockedWith === "UPDATE" ? "UPDATE on the table or on a column of it" : t.lockedWith;
          lack(t.table, t.lockedWith, t.lockedWith === "UPDATE" ? t.update : [], `MySQL wants ${what} for SELECT … FOR UPDATE`);
        } else lack(t.table, "SELECT");
      }
      if (t.read && tried(t.table, await attempt(conn, select(t.table, t.read, false))) === "denied") lack(t.table, "SELECT");
      if (t.update && tried(t.table, await attempt(conn, updateOf(t.table, t.update))) === "denied") {
        // Which columns: each alone.
        const denied: string[] = [];
        for (const c of t.update) if ((await attempt(conn, updateOf(t.table, [c]))) === "denied") denied.push(c);
        lack(t.table, "UPDATE", denied.length > 0 ? denied : t.update);
      }
      if (t.insert && tried(t.table, await attempt(conn, insertOf(t.table, t.insert))) === "denied") lack(t.table, "INSERT");
      if (t.delete && tried(t.table, await attempt(conn, `DELETE FROM ${quoted(t.table)} WHERE 1 = 0`)) === "denied")
        lack(t.table, "DELETE");
    }
  } finally {
    await conn.query("ROLLBACK");
  }
  for (const table of absent) {
    if (!OWN.includes(table)) problems.push(`table ${table} is missing: --credit-by-app writes BOINC's credit_user and credit_team`);
  }
  // The bridge's tables not seen there (missing, or every probe denied): CREATE. After the
  // transaction: CREATE TABLE commits whatever is open, even when it fails.
  const unseen = OWN.filter((table) => tables.some((t) => t.table === table) && !present.has(table));
  for (const table of unseen) if (!(await mayCreate(conn, table))) lack(table, "CREATE");
  if (missing.size + problems.length > 0) {
    const lines = [...missing].map(([table, { privileges, columns, notes }]) => {
      // A table not there yet is named in a GRANT only together with CREATE.
      const creates = unseen.includes(table);
      if (creates) {
        notes.push(
          absent.has(table)
            ? "the table is not there yet: the bridge creates it, and a GRANT names it only with CREATE"
            : "this account sees nothing of the table: with CREATE the GRANT works whether it is there or not",
        );
      }
      const grant = grantStatement(creates ? ["CREATE", ...privileges] : privileges, database, table, account, columns as GrantColumns);
      return `${table}: no ${privilegeList(privileges, columns)}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}: ${grant}`;
    });
    throw new BridgeError(
      `--write-back: this database account may not write what the write-back writes (a read-only account?); nothing was written. What ${account} lacks in database ${database}, and the GRANT that gives it (run them as the database's owner; docs/bridge.md, "Switch-over checklist"):\n  ${[...problems, ...lines].join("\n  ")}`,
    );
  }
}

/**
 * Writes the write-back never makes and the project's own account can (BOINC's daemons and web
 * pages log in as config.xml's db_user, with every privilege on the database): an account that
 * passes one of these holds more than the checklist's GRANTs give.
 */
const BEYOND: { what: string; sql: string }[] = [
  { what: "UPDATE user.authenticator", sql: "UPDATE `user` SET `authenticator` = '' WHERE 1 = 0" },
  { what: "UPDATE user.passwd_hash", sql: "UPDATE `user` SET `passwd_hash` = '' WHERE 1 = 0" },
  { what: "UPDATE user.email_addr", sql: "UPDATE `user` SET `email_addr` = '' WHERE 1 = 0" },
  { what: "UPDATE result.server_state", sql: "UPDATE `result` SET `server_state` = 0 WHERE 1 = 0" },
  { what: "DELETE on result", sql: "DELETE FROM `result` WHERE 1 = 0" },
];

/**
 * What this account may do beyond the write-back's privileges (`UPDATE user.authenticator`, …),
 * each tried with a statement that changes nothing (`WHERE 1 = 0`, in a transaction rolled
 * back); empty for an account with the checklist's GRANTs alone. A column an older BOINC
 * lacks is left out.
 */
export async function privilegesBeyondWriteBack(conn: mysql.Connection): Promise<string[]> {
  const beyond: string[] = [];
  await conn.query("START TRANSACTION");
  try {
    for (const { what, sql } of BEYOND) {
      try {
        await conn.query(sql);
        beyond.push(what);
      } catch (e) {
        const code = (e as { code?: string }).code ?? "";
        if (!DENIED.has(code) && code !== "ER_BAD_FIELD_ERROR" && code !== "ER_NO_SUCH_TABLE") throw e;
      }
    }
  } finally {
    await conn.query("ROLLBACK");
  }
  return beyond;
}

/**
 * The account the write-back logs in as (CURRENT_USER()), and what it may do beyond the
 * write-back's privileges. On a read-only server (a replica) nothing is tried: every write is
 * refused there whatever the privileges, and the write-back's opening refuses the server.
 */
export async function writeBackAccount(dsn: string): Promise<{ account: string; beyond: string[] }> {
  const conn = await openConnection(dsn);
  try {
    const { account } = await whoAndWhere(conn);
    const [ro] = await conn.query("SELECT @@global.read_only AS ro");
    if (Number((ro as { ro: unknown }[])[0]!.ro) !== 0) return { account, beyond: [] };
    return { account, beyond: await privilegesBeyondWriteBack(conn) };
  } finally {
    await conn.end().catch(() => undefined);
  }
}

/**
 * The warning when the write-back's account is the project's own (`projectUser`: config.xml's
 * db_user) or holds more than the write-back's privileges; null when it is neither.
 */
export function accountWarning(account: string, projectUser: string | null, beyond: string[]): string | null {
  if (projectUser === null && beyond.length === 0) return null;
  const may = beyond.length > 0 ? `, which may ${beyond.join(", ")} and more than the write-back needs` : "";
  const who =
    projectUser !== null
      ? `--write-back writes as the project's own database account (config.xml's db_user${projectUser ? ` '${projectUser}'` : ""}, logged in as ${account})${may}`
      : `--write-back's database account ${account} may do more than write credit (${beyond.join(", ")})`;
  return `${who}: the write-back needs only the GRANTs of docs/bridge.md's "Switch-over checklist" (step 2), on the credit columns; give it an account with those alone, as BOINC_DB_URL (or --db), and it cannot change a password, an authenticator or a result's state`;
}
