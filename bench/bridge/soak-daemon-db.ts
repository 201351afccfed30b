/**
 * One daemon's connection to the soak's database, as BOINC's daemons keep theirs: it comes back
 * when MariaDB is restarted (reconnects every half second until the server answers) and a
 * statement that waited too long on a lock, or was chosen as a deadlock's victim, is sent again.
 * Statements that may be sent twice (the connection lost before the answer) are written by the
 * daemons to be harmless the second time (INSERT IGNORE, `WHERE validate_state = 0`, …).
 */
import mysql from "mysql2/promise";
import type { DaemonCounts } from "./soak-records";

const LOCKED = new Set(["ER_LOCK_WAIT_TIMEOUT", "ER_LOCK_DEADLOCK"]);
const GONE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOENT",
  "EPIPE",
  "ETIMEDOUT",
  "PROTOCOL_CONNECTION_LOST",
  "ER_SERVER_SHUTDOWN",
  "ER_CONNECTION_KILLED",
  "ER_CON_COUNT_ERROR",
]);

const errorCode = (e: unknown) => (e as { code?: string }).code ?? "";
export const connectionLost = (e: unknown) => GONE.has(errorCode(e)) || (e as { fatal?: boolean }).fatal === true;
export const lockConflict = (e: unknown) => LOCKED.has(errorCode(e));

/** Thrown to end a daemon's loop when the process stops. */
export class Stopped extends Error {}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class DaemonDb {
  private conn: mysql.Connection | null = null;
  private connected = false;

  constructor(
    private readonly settings: mysql.ConnectionOptions,
    private readonly counts: DaemonCounts,
    private readonly stopping: () => boolean,
    /** BOINC's update_stats reads READ UNCOMMITTED; the others keep the server's default. */
    private readonly isolation: string | null = null,
  ) {}

  private async connection(): Promise<mysql.Connection> {
    while (!this.conn) {
      if (this.stopping()) throw new Stopped();
      try {
        const conn = await mysql.createConnection({ ...this.settings, multipleStatements: true });
        // An error event on an idle connection (the server went away) must not end the process.
        conn.on("error", () => undefined);
        await conn.query("SET time_zone = '+00:00'");
        if (this.isolation) await conn.query(`SET SESSION TRANSACTION ISOLATION LEVEL ${this.isolation}`);
        this.conn = conn;
        if (this.connected) this.counts.reconnects++;
        this.connected = true;
      } catch (e) {
        if (!connectionLost(e)) throw e;
        await pause(500);
      }
    }
    return this.conn;
  }

  private drop(): void {
    this.conn?.destroy();
    this.conn = null;
  }

  /** One statement (autocommit), sent again after a lock conflict or a lost connection. */
  async query<T = unknown>(sql: string, values?: unknown[]): Promise<T> {
    for (;;) {
      const conn = await this.connection();
      try {
        const [rows] = await conn.query(sql, values);
        return rows as T;
      } catch (e) {
        if (lockConflict(e)) {
          this.counts.lockRetries++;
          await pause(100);
          continue;
        }
        if (!connectionLost(e)) throw e;
        this.drop();
      }
    }
  }

  /**
   * `work` inside one transaction, on the connection as it is: a lock conflict rolls it back
   * and it runs again; a lost connection is thrown (the caller decides what the lost answer means).
   */
  async transaction<T>(work: (conn: mysql.Connection) => Promise<T>): Promise<T> {
    for (;;) {
      const conn = await this.connection();
      try {
        await conn.query("START TRANSACTION");
        const out = await work(conn);
        await conn.query("COMMIT");
        return out;
      } catch (e) {
        if (connectionLost(e)) {
          this.drop();
          throw e;
        }
        await conn.query("ROLLBACK").catch(() => undefined);
        if (!lockConflict(e)) throw e;
        this.counts.lockRetries++;
        await pause(100);
      }
    }
  }

  async close(): Promise<void> {
    await this.conn?.end().catch(() => undefined);
    this.conn = null;
  }
}
