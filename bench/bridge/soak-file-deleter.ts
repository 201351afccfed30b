/**
 * BOINC's transitioner and file deleter as the soak's result rows see them: some seconds after
 * a result is decided the transitioner marks its files ready to delete (file_delete_state 1),
 * and some seconds to a minute later the file deleter marks them deleted (2). Each rewrites the
 * row, so its mod_time (ON UPDATE CURRENT_TIMESTAMP) moves past the validation, and the bridge
 * reads the result again after its cursor.
 */
import type { DaemonDb } from "./soak-daemon-db";
import type { Random } from "./soak-random";
import type { DaemonCounts } from "./soak-records";

const FILE_DELETE = { none: 0, ready: 1, done: 2 } as const;
/** Seconds from the decision to the transitioner's write, and from that to the file deleter's. */
const TRANSITION_DELAY_S = [2, 20] as const;
const DELETE_DELAY_S = [5, 60] as const;

interface Due {
  id: number;
  at: number;
}

export class FileDeleter {
  private toTransition: Due[] = [];
  private toDelete: Due[] = [];

  constructor(
    private readonly db: DaemonDb,
    private readonly random: Random,
    private readonly counts: DaemonCounts,
  ) {}

  private later(from: number, [min, max]: readonly [number, number]): number {
    return from + (min + (max - min) * this.random()) * 1000;
  }

  /** A result was decided at `at` (Unix ms). */
  decided(id: number, at: number): void {
    this.toTransition.push({ id, at: this.later(at, TRANSITION_DELAY_S) });
  }

  async tick(): Promise<void> {
    const now = Date.now();
    const transitioned = await this.advance(this.toTransition, now, FILE_DELETE.none, FILE_DELETE.ready);
    this.toTransition = this.toTransition.filter((d) => d.at > now);
    for (const id of transitioned) this.toDelete.push({ id, at: this.later(now, DELETE_DELAY_S) });
    this.counts.transitioned += transitioned.length;
    const deleted = await this.advance(this.toDelete, now, FILE_DELETE.ready, FILE_DELETE.done);
    this.toDelete = this.toDelete.filter((d) => d.at > now);
    this.counts.fileDeleted += deleted.length;
  }

  /** Moves the results of `queue` due by `now` from file_delete_state `from` to `to`; returns their ids. */
  private async advance(queue: readonly Due[], now: number, from: number, to: number): Promise<number[]> {
    const due = queue.filter((d) => d.at <= now).map((d) => d.id);
    if (due.length > 0) {
      await this.db.query("UPDATE result SET file_delete_state = ? WHERE id IN (?) AND file_delete_state = ?", [to, due, from]);
    }
    return due;
  }
}
