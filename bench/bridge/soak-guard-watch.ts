/**
 * Watches the bridge's one-run guard during the soak (bridge/running/run-guard.ts: a MariaDB named lock
 * held for the whole run): every few seconds, whether the lock is held, and when the bridge last
 * wrote back. A bridge that wrote back between two samples that both found the lock free was
 * writing without its guard (a second run could start beside it). Right after MariaDB restarts
 * the lock is free until the bridge reconnects, and it writes nothing meanwhile: not counted.
 */
import type mysql from "mysql2/promise";
import { runLockName } from "../../bridge/running/run-guard";
import { WRITEBACK_TABLE } from "../../bridge/database/write-back-tables";
import type { BridgeSupervisor } from "./soak-supervisor";

const EVERY_MS = 10_000;
/** A process this young may still be taking the lock. */
const SETTLING_MS = 15_000;

export interface Unguarded {
  at: number;
  process: number;
}

export class GuardWatch {
  samples = 0;
  readonly unguarded: Unguarded[] = [];
  /** The last sample: the database's clock, whether the lock was free, and the process then. */
  private last: { now: number; free: boolean; process: number } | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly root: () => Promise<mysql.Connection>,
    database: string,
    project: string,
    private readonly bridge: BridgeSupervisor,
  ) {
    const name = runLockName(database, project);
    this.timer = setInterval(() => void this.sample(name), EVERY_MS);
  }

  private async sample(name: string): Promise<void> {
    const p = this.bridge.current;
    if (!p || Date.now() - p.startedAt < SETTLING_MS) return;
    const conn = await this.root().catch(() => null);
    if (!conn) return;
    try {
      const [rows] = await conn.query(
        `SELECT IS_USED_LOCK(?) AS holder, UNIX_TIMESTAMP(MAX(written_at)) AS last_write, UNIX_TIMESTAMP() AS now FROM ${WRITEBACK_TABLE}`,
        [name],
      );
      const r = (rows as { holder: number | null; last_write: number | null; now: number }[])[0]!;
      this.samples++;
      const free = r.holder === null;
      const before = this.last;
      this.last = { now: Number(r.now), free, process: p.n };
      // written_at is whole seconds: a write in the second of the last sample counts as after it.
      const wroteSince = before !== null && r.last_write !== null && Number(r.last_write) >= Math.floor(before.now);
      if (free && before?.free && before.process === p.n && wroteSince && this.bridge.current === p) {
        this.unguarded.push({ at: Date.now(), process: p.n });
      }
    } catch {
      // The database is restarting, or the bridge has not created its table yet.
    } finally {
      await conn.end().catch(() => undefined);
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
