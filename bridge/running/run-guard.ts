/**
 * The one-run guard: a MariaDB named lock (GET_LOCK) on a connection the guard owns, held for the
 * whole run. The server frees it when that connection ends, so a run killed in any way (SIGKILL,
 * the machine gone) never blocks the next, and it holds across machines: every bridge of a
 * project on any machine asks the same server (docs/bridge.md, "Stopping, starting again").
 *
 * A lock that ends with its connection can also end under a run that goes on: the server closes
 * an idle session after wait_timeout, an admin KILLs it, the server restarts. So the guard keeps
 * its session alive (its own wait_timeout, a heartbeat), checks that it still holds the lock
 * before every poll, post and write (ensureHeld), and when it lost it takes it again on a new
 * connection, or, if another run holds it now, stops the run (exit 76) before anything more is
 * posted or written.
 */
import { createHash } from "node:crypto";
import type mysql from "mysql2/promise";
import { openConnection } from "../database/boinc-db";
import { BridgeError } from "../shared/errors";

/** MariaDB refuses lock names over 64 characters. */
const MAX_LOCK_NAME = 64;

/**
 * The guard session's own wait_timeout (s). The server's default (8 hours) is how long a run whose
 * machine died without closing its TCP connection (power cut, kernel panic, network gone) would
 * keep every later run out; 10 minutes bounds that, and still leaves ten heartbeats' slack for an
 * event loop that stalls (a long synchronous step, a suspended VM) before the server gives up.
 */
export const GUARD_WAIT_TIMEOUT_S = 600;
/** A check every minute keeps the session from idling out, however long a poll interval or a request. */
export const HEARTBEAT_MS = 60_000;
/** A check unanswered this long is a connection lost: a dead peer's TCP would otherwise hang for many minutes. */
const CHECK_TIMEOUT_MS = 10_000;
/**
 * How long taking the lock again waits when the server still has it for this run's former
 * connection: the client sees a KILLed session close a moment before the server frees its lock.
 */
const FORMER_SESSION_WAIT_S = 10;

export function runLockName(database: string, project: string): string {
  const name = `cobblestone-bridge-${database}-${project}`;
  if (name.length <= MAX_LOCK_NAME) return name;
  return `cobblestone-bridge-${createHash("sha256").update(`${database}\0${project}`).digest("hex").slice(0, 40)}`;
}

export interface RunGuardOptions {
  log?: (line: string) => void;
  /** The heartbeat's period; 0: none (the tests show what it prevents). */
  heartbeatMs?: number;
  /** The guard session's wait_timeout (s). */
  sessionTimeoutS?: number;
}

interface Lease {
  conn: mysql.Connection;
  id: number;
  /** When the server last answered on it (ms). */
  lastAnswer: number;
  /** Set when the connection closed or stopped answering: when, and what the client was told. */
  closed: { at: number; why: string } | null;
}

const describe = (e: unknown) => {
  const err = e as { code?: string; message?: string };
  return [err.code, err.message].filter(Boolean).join(": ") || String(e);
};

export class RunGuard {
  /** Whether the lock is held, as last known (a check, a heartbeat, or the connection's close); feeds `guard_held`. */
  held = true;
  private lease: Lease;
  /** Set once another run took the lock: every later check throws it. */
  private lost: BridgeError | null = null;
  /** Checks run one after another (the heartbeat, a post and a write can ask at once). */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly heartbeat: NodeJS.Timeout | null;
  private released = false;
  private readonly name: string;
  private readonly log: (line: string) => void;
  private readonly sessionTimeoutS: number;

  private constructor(
    private readonly dsn: string,
    private readonly database: string,
    private readonly project: string,
    lease: Lease,
    options: RunGuardOptions,
  ) {
    this.name = runLockName(database, project);
    this.log = options.log ?? (() => undefined);
    this.sessionTimeoutS = options.sessionTimeoutS ?? GUARD_WAIT_TIMEOUT_S;
    this.lease = this.watch(lease);
    const period = options.heartbeatMs ?? HEARTBEAT_MS;
    // Unref'd: the heartbeat never keeps a finished run's process alive.
    this.heartbeat = period > 0 ? setInterval(() => void this.ensureHeld().catch(() => undefined), period).unref() : null;
  }

  /** Takes the project's lock without waiting, or says who holds it (exit 76). */
  static async take(dsn: string, database: string, project: string, options: RunGuardOptions = {}): Promise<RunGuard> {
    const name = runLockName(database, project);
    const conn = await openConnection(dsn);
    try {
      const lease = await lock(conn, name, options.sessionTimeoutS ?? GUARD_WAIT_TIMEOUT_S, 0);
      if ("holder" in lease) {
        throw new BridgeError(
          `another bridge run is working on project '${project}' of database '${database}' (it holds the database lock '${name}', connection ${lease.holder}); this one exits (a run every minute overlaps a long one: that is fine)`,
          { kind: "locked" },
        );
      }
      return new RunGuard(dsn, database, project, lease, options);
    } catch (e) {
      conn.destroy();
      throw e;
    }
  }

  /**
   * Resolves once this run holds the lock: checked on its connection (one round trip), taken
   * again on a new one if that connection is gone. Throws a BridgeError (exit 76) if another run
   * holds it now, a transient one if the database cannot be reached (--follow backs off).
   */
  ensureHeld(): Promise<void> {
    const check = this.queue.then(() => this.check());
    this.queue = check.catch(() => undefined);
    return check;
  }

  /** Frees the lock and ends the guard's connection. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    await this.queue;
    const { conn } = this.lease;
    if (this.lease.closed) return conn.destroy();
    await conn.query("SELECT RELEASE_LOCK(?)", [this.name]).catch(() => undefined);
    await conn.end().catch(() => conn.destroy());
  }

  private async check(): Promise<void> {
    if (this.lost) throw this.lost;
    if (this.released) throw new BridgeError("the bridge's run guard was used after the run released it", { kind: "bug" });
    const lease = this.lease;
    if (!lease.closed) {
      try {
        const [rows] = await lease.conn.query({ sql: "SELECT IS_USED_LOCK(?) = CONNECTION_ID() AS mine", timeout: CHECK_TIMEOUT_MS }, [
          this.name,
        ]);
        if (Number((rows as { mine: unknown }[])[0]?.mine) === 1) {
          lease.lastAnswer = Date.now();
          this.held = true;
          return;
        }
        lease.closed ??= { at: Date.now(), why: "it answered but no longer held the lock" };
      } catch (e) {
        lease.closed ??= { at: Date.now(), why: describe(e) };
      }
    }
    this.held = false;
    await this.takeAgain(lease);
  }

  /** The lock on a new connection; the former one is dropped. */
  private async takeAgain(former: Lease): Promise<void> {
    // Its close is already noted: watch() ignores the events of its end.
    former.conn.destroy();
    const closed = former.closed!;
    const idle = ((closed.at - former.lastAnswer) / 1000).toFixed(0);
    const what = `its connection (id ${former.id}) was closed ${idle} s after its last answer (${closed.why})`;
    const conn = await openConnection(this.dsn);
    try {
      let lease = await lock(conn, this.name, this.sessionTimeoutS, 0);
      if ("holder" in lease && lease.holder === former.id) lease = await lock(conn, this.name, this.sessionTimeoutS, FORMER_SESSION_WAIT_S);
      // Freed between the two reads of one statement: ask once more.
      if ("holder" in lease && lease.holder === null) lease = await lock(conn, this.name, this.sessionTimeoutS, 0);
      if (!("holder" in lease)) {
        this.lease = this.watch(lease);
        this.held = true;
        this.log(`guard: ${what}; took the lock again on connection ${lease.id} (no other run had taken it)`);
        return;
      }
      if (lease.holder === former.id || lease.holder === null) {
        throw new BridgeError(
          `the one-run guard is not held: ${what}, and the server has not freed the lock '${this.name}' yet (it does within ${this.sessionTimeoutS} s); nothing is posted or written until it is taken again`,
          { transient: true },
        );
      }
      this.lost = new BridgeError(
        `the one-run guard was lost: ${what}, and another bridge run is working on project '${this.project}' of database '${this.database}' now (it holds the database lock '${this.name}', connection ${lease.holder}). This run stopped at its first check since (one comes before every post and every write-back commit): nothing was written back without the lock. Run one bridge per project (look for a second cron job, systemd unit or machine); this command resumes from its state file once the other run has ended`,
        { kind: "locked" },
      );
      throw this.lost;
    } catch (e) {
      if (this.lease.conn !== conn) conn.destroy();
      throw e;
    }
  }

  /** Notes the connection's close as it happens, and takes the lock again at once rather than at the next check. */
  private watch(lease: Lease): Lease {
    const closed = (why: string) => {
      if (this.released || this.lease !== lease || lease.closed) return;
      lease.closed = { at: Date.now(), why };
      this.held = false;
      void this.ensureHeld().catch(() => undefined);
    };
    lease.conn.on("error", (e: unknown) => closed(describe(e)));
    lease.conn.on("end", () => closed("the server ended it"));
    return lease;
  }
}

/** GET_LOCK on `conn` after setting its session's wait_timeout: the lease, or who holds the lock (null: freed meanwhile). */
async function lock(
  conn: mysql.Connection,
  name: string,
  sessionTimeoutS: number,
  waitS: number,
): Promise<Lease | { holder: number | null }> {
  await conn.query(`SET SESSION wait_timeout = ${Math.floor(sessionTimeoutS)}`);
  const [rows] = await conn.query("SELECT GET_LOCK(?, ?) AS got, IS_USED_LOCK(?) AS holder, CONNECTION_ID() AS id", [name, waitS, name]);
  const { got, holder, id } = (rows as { got: unknown; holder: unknown; id: unknown }[])[0]!;
  if (Number(got) === 1) return { conn, id: Number(id), lastAnswer: Date.now(), closed: null };
  return { holder: holder === null ? null : Number(holder) };
}
