/**
 * Reads a BOINC project's database (MySQL/MariaDB, BOINC's own tables and column names)
 * through read-only sessions (the write-back has a connection of its own: write-back.ts). Result rows stream in (mod_time, id) order,
 * one page at a time, so memory stays flat however long the history; BOINC's schema has no index on
 * result.mod_time, so the order is read as keys, many pages' worth per scan of the table.
 */
import mysql from "mysql2/promise";
import type { Cursor, ResultRow } from "./rows";
import { type DsnSettings, dsnSettings } from "./db-params";
import { BridgeError, isUnavailableCode } from "../shared/errors";
import { grantStatement, whoAndWhere } from "./grants";
import { WRITEBACK_TABLE } from "./write-back-tables";

/** Every column the bridge reads, per table: checked up front so a missing one is named. */
export const REQUIRED_COLUMNS: Record<string, string[]> = {
  app: ["id", "name", "host_scale_check", "target_nresults"],
  app_version: ["id", "appid", "platformid", "plan_class", "version_num"],
  platform: ["id", "name"],
  host: ["id", "create_time", "userid", "host_cpid"],
  user: ["id", "create_time", "teamid", "name", "cross_project_id", "email_addr"],
  team: ["id", "create_time", "name"],
  workunit: ["id", "appid", "rsc_fpops_est", "rsc_fpops_bound", "target_nresults", "delay_bound", "canonical_resultid", "canonical_credit"],
  result: [
    "id",
    "workunitid",
    "hostid",
    "userid",
    "teamid",
    "app_version_id",
    "elapsed_time",
    "cpu_time",
    "flops_estimate",
    "sent_time",
    "received_time",
    "validate_state",
    "outcome",
    "exit_status",
    "runtime_outlier",
    "granted_credit",
    "mod_time",
  ],
};

/** Columns added by later BOINC servers, with what to tell the admin when one is missing. */
const NEWER_COLUMNS: Record<string, string> = {
  "result.flops_estimate":
    "result.flops_estimate, result.elapsed_time and result.app_version_id came with BOINC's credit system of 2010 (server 6.11+)",
  "result.elapsed_time": "result.elapsed_time came with BOINC's credit system of 2010 (server 6.11+)",
  "result.app_version_id": "result.app_version_id came with BOINC's credit system of 2010 (server 6.11+)",
  "result.runtime_outlier": "result.runtime_outlier came with BOINC server 7.0",
  "app.host_scale_check": "app.host_scale_check came with BOINC server 7.0",
};

export interface AppRow {
  id: number;
  name: string;
  host_scale_check: number;
  target_nresults: number;
}
export interface AppVersionRow {
  id: number;
  app: string;
  platform: string;
  plan_class: string;
  version_num: number;
}
export interface HostRow {
  id: number;
  create_time: number;
  userid: number;
  host_cpid: string | null;
  owner_email: string | null;
}
export interface UserRow {
  id: number;
  create_time: number;
  teamid: number;
  name: string | null;
  cross_project_id: string | null;
  email_addr: string | null;
}
export interface TeamRow {
  id: number;
  create_time: number;
  name: string | null;
}

/** Rows to post: decided (valid/invalid) successes, and client errors and timeouts. */
const POSTABLE = "((r.outcome = 1 AND r.validate_state IN (1, 2)) OR r.outcome IN (3, 4))";
const AFTER_CURSOR = "r.mod_time >= FROM_UNIXTIME(?) AND (r.mod_time > FROM_UNIXTIME(?) OR r.id > ?) AND r.mod_time < FROM_UNIXTIME(?)";

/** A valid success that already has credit (BOINC's validator granted it, or --write-back did). */
const GRANTED = "(r.outcome = 1 AND r.validate_state = 1 AND r.granted_credit <> 0)";

/** Row keys read per scan of the result table: 100,000 keys are about 5 MB. */
const KEYS_PER_SCAN = 100_000;
/** Result ids per look-up in --write-back's table. */
const WRITTEN_PER_QUERY = 10_000;

/** A row's place in the (mod_time, id) order, whether it is GRANTED, and when it was reported (switch-decision.ts). */
export interface ResultKey extends Cursor {
  granted: boolean;
  received_time: number;
}

export interface ReadOptions {
  pageSize?: number;
  keysPerScan?: number;
  /** Called with each scan's keys before any of their rows is read; a throw ends the reading. */
  check?: (keys: ResultKey[]) => Promise<void>;
}

const RESULT_SELECT = `
  SELECT r.id, UNIX_TIMESTAMP(r.mod_time) AS mod_time, r.workunitid AS workunit_id, w.appid AS app_id, a.name AS app,
         w.rsc_fpops_est, w.rsc_fpops_bound, w.target_nresults, w.delay_bound, w.canonical_credit, w.canonical_resultid,
         r.hostid AS host_id, r.userid AS user_id, r.teamid AS team_id, r.app_version_id,
         r.elapsed_time, r.cpu_time, r.flops_estimate, r.sent_time, r.received_time,
         r.validate_state, r.outcome, r.exit_status, r.runtime_outlier, r.granted_credit
  FROM result r LEFT JOIN workunit w ON w.id = r.workunitid LEFT JOIN app a ON a.id = w.appid`;

const NUMERIC_ROW_FIELDS = [
  "id",
  "mod_time",
  "workunit_id",
  "app_id",
  "rsc_fpops_est",
  "rsc_fpops_bound",
  "target_nresults",
  "delay_bound",
  "host_id",
  "user_id",
  "team_id",
  "app_version_id",
  "elapsed_time",
  "cpu_time",
  "flops_estimate",
  "sent_time",
  "received_time",
  "validate_state",
  "outcome",
  "exit_status",
  "runtime_outlier",
  "granted_credit",
  "canonical_credit",
  "canonical_resultid",
] as const;

function toResultRow(raw: Record<string, unknown>): ResultRow {
  const row = { ...raw } as Record<string, unknown>;
  for (const f of NUMERIC_ROW_FIELDS) row[f] = raw[f] === null || raw[f] === undefined ? null : Number(raw[f]);
  return row as unknown as ResultRow;
}

/** A DSN's description without its password, for messages. */
export function redactDsn(dsn: string): string {
  try {
    const u = new URL(dsn);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(not a URL)";
  }
}

/**
 * What to run when the result table has no index on mod_time (docs/bridge.md, step 3 of the
 * checklist), on the database the bridge reads: the replica, or with --write-back the primary
 * (an index created on the primary reaches its replicas; one created on a replica stays there).
 */
export function modTimeIndexStatement(database: string): string {
  const name = /^[A-Za-z0-9_$]+$/.test(database) ? database : `\`${database.replace(/`/g, "``")}\``;
  return `CREATE INDEX res_mod_time ON ${name}.result (mod_time, id);`;
}

/** What to do about a password with URL characters in it. */
export const PASSWORD_HINT =
  "percent-encode the whole password in the URL (every : / # @ % ? and space: %3A %2F %23 %40 %25 %3F %20), or give it as BOINC_DB_URL or --boinc-config";

/** What a failed TLS handshake means, by ssl-mode (db-params.ts). */
function tlsFailure(tls: DsnSettings, message: string): string {
  const checked =
    tls.sslMode === "REQUIRED"
      ? ""
      : tls.sslCa
        ? `: the server's certificate must be signed by the CA in ssl-ca (${tls.sslCa})`
        : ": without ssl-ca the server's certificate must be signed by a CA Node trusts (its bundled list, and NODE_EXTRA_CA_CERTS); give the project's CA as ssl-ca";
  const identity = /altnames|does not match/i.test(message)
    ? "; with ssl-mode=VERIFY_IDENTITY the host in the URL must be one the certificate names (or say VERIFY_CA)"
    : "";
  return `the TLS handshake failed (${message}) with ssl-mode=${tls.sslMode}${checked}${identity}; nothing was sent`;
}

function connectionError(dsn: string, e: unknown, tls: DsnSettings): BridgeError {
  const err = e as { code?: string; message?: string };
  const where = redactDsn(dsn);
  const noTls = tls.sslMode === "DISABLED";
  const why: Record<string, string> = {
    ECONNREFUSED: "nothing listens there (is MySQL/MariaDB running, and is the port right?)",
    ENOTFOUND: "the host name does not resolve",
    ETIMEDOUT: "the connection timed out",
    ER_ACCESS_DENIED_ERROR: `the user name or password was refused (if the password has special characters: ${PASSWORD_HINT})${noTls ? '; or the server or this account takes only TLS (require_secure_transport, REQUIRE SSL): add ssl-mode=VERIFY_CA&ssl-ca=/path/ca.pem (docs/bridge.md, "TLS to the database")' : ""}`,
    ER_DBACCESS_DENIED_ERROR: "this user may not read that database",
    ER_BAD_DB_ERROR: "there is no database of that name",
    HANDSHAKE_NO_SSL_SUPPORT: `the server offers no TLS, and ssl-mode=${tls.sslMode} requires it: nothing was sent in cleartext. Turn TLS on in the server (ssl_cert and ssl_key in its [mysqld] section), or say ssl-mode=DISABLED where the network is trusted`,
    HANDSHAKE_SSL_ERROR: tlsFailure(tls, err.message ?? String(e)),
  };
  // MariaDB's and MySQL's require_secure_transport (MariaDB's errno has no name in mysql2's list).
  const insecure = /insecure transport/i.test(err.message ?? "")
    ? `the server accepts only TLS connections (${err.message}): add ssl-mode=VERIFY_CA&ssl-ca=/path/ca.pem to the database URL (docs/bridge.md, "TLS to the database")`
    : undefined;
  return new BridgeError(`cannot open the BOINC database ${where}: ${insecure ?? why[err.code ?? ""] ?? err.message ?? String(e)}`, {
    transient: isUnavailableCode(err.code),
  });
}

/**
 * mysql2's settings for a DSN, and the database it names; a malformed DSN, or a parameter the
 * bridge does not know, is refused with the fix. Every connection the bridge opens (the read
 * pool, the run guard's, the write-back's) takes its settings here, TLS included (db-params.ts).
 */
export function connectionSettings(dsn: string): { settings: mysql.ConnectionOptions; database: string; tls: DsnSettings } {
  let url: URL;
  let user: string;
  let password: string;
  let database: string;
  try {
    url = new URL(dsn);
    [user, password, database] = [url.username, url.password, url.pathname.slice(1)].map(decodeURIComponent) as [string, string, string];
  } catch {
    throw new BridgeError(
      `--db must be a URL like mysql://USER:PASS@HOST:PORT/DB (got ${JSON.stringify(redactDsn(dsn))}); ${PASSWORD_HINT}`,
    );
  }
  if (url.protocol !== "mysql:" && url.protocol !== "mariadb:") {
    throw new BridgeError(`--db must start with mysql:// (got ${url.protocol}//)`);
  }
  if (url.pathname.length <= 1) throw new BridgeError("--db names no database: mysql://USER:PASS@HOST:PORT/DB");
  const host = url.hostname || "localhost";
  const tls = dsnSettings(url.searchParams, host);
  const { socketPath, ssl } = tls;
  return {
    database,
    tls,
    settings: {
      host,
      port: url.port ? Number(url.port) : 3306,
      user,
      password,
      database,
      ...(socketPath ? { socketPath } : {}),
      ...(ssl ? { ssl } : {}),
      supportBigNumbers: true,
      timezone: "Z",
    },
  };
}

/** One connection of its own (the run guard's, the write-back's), in UTC; fails with the reason named. */
export async function openConnection(dsn: string, extra: mysql.ConnectionOptions = {}): Promise<mysql.Connection> {
  const { settings, tls } = connectionSettings(dsn);
  try {
    const conn = await mysql.createConnection({ ...settings, ...extra });
    await conn.query("SET time_zone = '+00:00'");
    return conn;
  } catch (e) {
    throw connectionError(dsn, e, tls);
  }
}

export class BoincDb {
  private constructor(
    private readonly pool: mysql.Pool,
    /** The database's name (the DSN's path). */
    readonly database: string,
  ) {}

  static async open(dsn: string): Promise<BoincDb> {
    const { settings, database, tls } = connectionSettings(dsn);
    const pool = mysql.createPool({
      ...settings,
      // The count for the progress line, a scan for the next keys, a page of rows and the holders
      // of a batch can be read at once.
      connectionLimit: 4,
      // Every session reads in UTC and cannot write: the bridge reads through this pool only.
    });
    pool.on("connection", (conn) => {
      conn.query("SET time_zone = '+00:00'");
      conn.query("SET SESSION TRANSACTION READ ONLY");
    });
    try {
      await pool.query("SELECT 1");
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw connectionError(dsn, e, tls);
    }
    return new BoincDb(pool, database);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** The read-only pool itself, for readers of their own (unpaid.ts, audit.ts). */
  get reader(): mysql.Pool {
    return this.pool;
  }

  /**
   * Fails with every missing table or column named, and why an old schema lacks it. Says whether
   * the result table has an index that reads in mod_time order (one whose first column is
   * mod_time): without one every read of the rows after the cursor scans the whole table.
   */
  async checkSchema(): Promise<{ modTimeIndex: boolean }> {
    const [rows] = await this.pool.query(
      "SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()",
    );
    const present = new Set((rows as { t: string; c: string }[]).map((r) => `${r.t}.${r.c}`));
    const tables = new Set((rows as { t: string }[]).map((r) => r.t));
    const problems: string[] = [];
    for (const [table, columns] of Object.entries(REQUIRED_COLUMNS)) {
      if (!tables.has(table)) {
        problems.push(`table '${table}' is missing`);
        continue;
      }
      for (const c of columns) {
        const key = `${table}.${c}`;
        if (!present.has(key))
          problems.push(`column ${key} is missing${NEWER_COLUMNS[key] ? `: ${NEWER_COLUMNS[key]}; upgrade the project's server` : ""}`);
      }
    }
    if (problems.length > 0) {
      // The server shows an account only the tables and columns it has a privilege on.
      const { account, database } = await whoAndWhere(this.pool);
      throw new BridgeError(
        `this database does not have BOINC's tables as the bridge reads them:\n  ${problems.join("\n  ")}\nIf they are there, this account may not read them: ${grantStatement(["SELECT"], database, "*", account)}`,
      );
    }
    const [indexes] = await this.pool.query(
      `SELECT INDEX_NAME AS name FROM information_schema.STATISTICS
       WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'result' AND SEQ_IN_INDEX = 1 AND COLUMN_NAME = 'mod_time' LIMIT 1`,
    );
    return { modTimeIndex: (indexes as unknown[]).length > 0 };
  }

  async apps(): Promise<AppRow[]> {
    const [rows] = await this.pool.query("SELECT id, name, host_scale_check, target_nresults FROM app ORDER BY id");
    return rows as AppRow[];
  }

  async appVersions(): Promise<AppVersionRow[]> {
    const [rows] = await this.pool.query(
      `SELECT v.id, a.name AS app, p.name AS platform, v.plan_class, v.version_num
       FROM app_version v JOIN app a ON a.id = v.appid JOIN platform p ON p.id = v.platformid ORDER BY v.id`,
    );
    return rows as AppVersionRow[];
  }

  async hosts(ids: number[]): Promise<HostRow[]> {
    if (ids.length === 0) return [];
    const [rows] = await this.pool.query(
      "SELECT h.id, h.create_time, h.userid, h.host_cpid, u.email_addr AS owner_email FROM host h LEFT JOIN user u ON u.id = h.userid WHERE h.id IN (?)",
      [ids],
    );
    return rows as HostRow[];
  }

  async users(ids: number[]): Promise<UserRow[]> {
    if (ids.length === 0) return [];
    const [rows] = await this.pool.query("SELECT id, create_time, teamid, name, cross_project_id, email_addr FROM user WHERE id IN (?)", [
      ids,
    ]);
    return rows as UserRow[];
  }

  async teams(ids: number[]): Promise<TeamRow[]> {
    if (ids.length === 0) return [];
    const [rows] = await this.pool.query("SELECT id, create_time, name FROM team WHERE id IN (?)", [ids]);
    return rows as TeamRow[];
  }

  /** The database server's clock (Unix seconds): what stamps mod_time, whatever the bridge machine's clock says. */
  async serverTime(): Promise<number> {
    const [rows] = await this.pool.query("SELECT UNIX_TIMESTAMP() AS now");
    return Math.floor(Number((rows as { now: unknown }[])[0]!.now));
  }

  /** How many rows there are to post after the cursor, before `until` (for the progress bar). */
  async countAfter(cursor: Cursor, until: number): Promise<number> {
    const [rows] = await this.pool.query(`SELECT COUNT(*) AS n FROM result r WHERE ${AFTER_CURSOR} AND ${POSTABLE}`, [
      cursor.mod_time,
      cursor.mod_time,
      cursor.id,
      until,
    ]);
    return Number((rows as { n: number }[])[0]!.n);
  }

  /**
   * The keys of the next rows after the cursor, in (mod_time, id) order, and whether more follow
   * (one key more is read to know it, so a history of exactly `limit` rows is not scanned again).
   * BOINC has no index on result.mod_time, so every such query scans the whole result table: the
   * keys of many pages are read in one scan (a few MB), and the rows themselves by primary key.
   * Each key says whether its row is a valid success with credit already granted: what
   * --write-back's refusal looks for, read in the same scan (write-back-refusals.ts).
   */
  private async keys(cursor: Cursor, until: number, limit: number): Promise<{ keys: ResultKey[]; more: boolean }> {
    const [rows] = await this.pool.query(
      `SELECT r.id, UNIX_TIMESTAMP(r.mod_time) AS mod_time, ${GRANTED} AS granted, r.received_time
       FROM result r WHERE ${AFTER_CURSOR} AND ${POSTABLE} ORDER BY r.mod_time, r.id LIMIT ?`,
      [cursor.mod_time, cursor.mod_time, cursor.id, until, limit + 1],
    );
    const keys = (rows as { id: unknown; mod_time: unknown; granted: unknown; received_time: unknown }[]).map((r) => ({
      id: Number(r.id),
      mod_time: Number(r.mod_time),
      granted: Number(r.granted) === 1,
      received_time: Number(r.received_time),
    }));
    const more = keys.length > limit;
    if (more) keys.pop();
    return { keys, more };
  }

  /**
   * The rows of `keys`, in their order, each with the mod_time its key was read with: a row
   * stamped again since (BOINC's transitioner does) keeps its place, as if read a moment earlier,
   * so the cursor never passes a row unread; a row no longer postable is left out.
   */
  private async rowsOf(keys: ResultKey[]): Promise<ResultRow[]> {
    const [rows] = await this.pool.query(`${RESULT_SELECT} WHERE r.id IN (?) AND ${POSTABLE}`, [keys.map((k) => k.id)]);
    const byId = new Map((rows as Record<string, unknown>[]).map((r) => [Number(r.id), r]));
    const out: ResultRow[] = [];
    for (const k of keys) {
      const raw = byId.get(k.id);
      if (raw) out.push({ ...toResultRow(raw), mod_time: k.mod_time });
    }
    return out;
  }

  /**
   * Rows after the cursor and before `until`, in (mod_time, id) order: the keys of up to
   * `keysPerScan` rows per scan of the table, the rows `pageSize` at a time by id; the next page
   * (and the next scan) is read while this one is used. The first scan starts now, not when the
   * rows are first asked for: the run prepares the service meanwhile. `check` sees every scan's
   * keys before any row of them is read (--write-back refuses there).
   */
  rowsAfter(cursor: Cursor, until: number, options: ReadOptions = {}): AsyncGenerator<ResultRow> {
    const keysPerScan = options.keysPerScan ?? KEYS_PER_SCAN;
    const first = this.keys(cursor, until, keysPerScan);
    // Awaited by the generator; until then a failure must not count as unhandled.
    first.catch(() => undefined);
    return this.rowsFrom(first, until, keysPerScan, options.pageSize ?? 5000, options.check);
  }

  private async *rowsFrom(
    first: ReturnType<BoincDb["keys"]>,
    until: number,
    keysPerScan: number,
    pageSize: number,
    check: ReadOptions["check"],
  ): AsyncGenerator<ResultRow> {
    let scan = first;
    for (;;) {
      const { keys, more } = await scan;
      if (check) await check(keys);
      const last = keys.at(-1);
      if (last && more) scan = this.keys(last, until, keysPerScan);
      let next = keys.length > 0 ? this.rowsOf(keys.slice(0, pageSize)) : null;
      for (let from = 0; next; from += pageSize) {
        const page = await next;
        next = from + pageSize < keys.length ? this.rowsOf(keys.slice(from + pageSize, from + 2 * pageSize)) : null;
        yield* page;
      }
      if (!last || !more) return;
    }
  }

  /** Of these results, the ones --write-back has written (its own table, write-back-tables.ts). */
  async writtenBack(ids: number[]): Promise<Set<number>> {
    const written = new Set<number>();
    for (let i = 0; i < ids.length; i += WRITTEN_PER_QUERY) {
      const [rows] = await this.pool.query(`SELECT result_id FROM ${WRITEBACK_TABLE} WHERE result_id IN (?)`, [
        ids.slice(i, i + WRITTEN_PER_QUERY),
      ]);
      for (const r of rows as { result_id: unknown }[]) written.add(Number(r.result_id));
    }
    return written;
  }
}
