/**
 * --follow's account of itself: each answered result's lag behind its validation (from its
 * mod_time to the answered, and written, request), and a line a minute.
 */
import type { Cursor } from "./rows";

const MINUTE_MS = 60_000;

export interface Lag {
  n: number;
  mean_s: number;
  max_s: number;
}

export class FollowMeter {
  /** Over the whole run (the summary line). */
  readonly lag: Lag = { n: 0, mean_s: 0, max_s: 0 };
  private minute: { at: number; results: number; written: number; lagMax: number };

  constructor(private readonly nowMs: () => number = Date.now) {
    this.minute = { at: nowMs(), results: 0, written: 0, lagMax: 0 };
  }

  /** A request's rows answered, and `written` of its results written back, at `doneAt` (the database's clock). */
  answered(rows: Iterable<{ mod_time: number }>, doneAt: number, written: number): void {
    for (const row of rows) {
      const lag = Math.max(0, doneAt - row.mod_time);
      this.lag.mean_s += (lag - this.lag.mean_s) / ++this.lag.n;
      this.lag.max_s = Math.max(this.lag.max_s, lag);
      this.minute.lagMax = Math.max(this.minute.lagMax, lag);
      this.minute.results++;
    }
    this.minute.written += written;
  }

  /** The minute's line once a minute has passed since the last one (then counting starts again), else null. */
  minuteLine(writeBack: boolean, cursor: Cursor): string | null {
    const now = this.nowMs();
    if (now - this.minute.at < MINUTE_MS) return null;
    const { results, written, lagMax } = this.minute;
    const line = `follow: ${results} results posted${writeBack ? `, ${written} written back` : ""} in the last ${((now - this.minute.at) / 1000).toFixed(0)} s; lag behind the validator at most ${lagMax.toFixed(1)} s; cursor ${new Date(cursor.mod_time * 1000).toISOString()}`;
    this.minute = { at: now, results: 0, written: 0, lagMax: 0 };
    return line;
  }
}
