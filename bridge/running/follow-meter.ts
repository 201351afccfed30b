/**
 * --follow's account of itself: each answered result's lag behind its validation (from its
 * mod_time to the answered, and written, request), and a summary a minute.
 */
import type { Cursor } from "../database/rows";

const MINUTE_MS = 60_000;

export interface Lag {
  n: number;
  mean_s: number;
  max_s: number;
}

/** What the last minute (or so) did. */
export interface MinuteSummary {
  seconds: number;
  /** Rows of the requests answered (their seconds' rows, error outcomes included). */
  results: number;
  written: number;
  lagMax: number;
}

export class FollowMeter {
  /** Over the whole run (the summary line). */
  readonly lag: Lag = { n: 0, mean_s: 0, max_s: 0 };
  private minute: { at: number; results: number; written: number; lagMax: number };

  constructor(private readonly nowMs: () => number = Date.now) {
    this.minute = { at: nowMs(), results: 0, written: 0, lagMax: 0 };
  }

  /**
   * A request's rows answered, and `written` of its results written back, at `doneAt` (the
   * database's clock); returns the largest lag among them (0 for none).
   */
  answered(rows: Iterable<{ mod_time: number }>, doneAt: number, written: number): number {
    let largest = 0;
    for (const row of rows) {
      const lag = Math.max(0, doneAt - row.mod_time);
      this.lag.mean_s += (lag - this.lag.mean_s) / ++this.lag.n;
      this.lag.max_s = Math.max(this.lag.max_s, lag);
      largest = Math.max(largest, lag);
      this.minute.results++;
    }
    this.minute.lagMax = Math.max(this.minute.lagMax, largest);
    this.minute.written += written;
    return largest;
  }

  /** Once a minute has passed since the last one: what it did (then counting starts again); else null. */
  minuteSummary(): MinuteSummary | null {
    const now = this.nowMs();
    if (now - this.minute.at < MINUTE_MS) return null;
    const { results, written, lagMax } = this.minute;
    const summary = { seconds: (now - this.minute.at) / 1000, results, written, lagMax };
    this.minute = { at: now, results: 0, written: 0, lagMax: 0 };
    return summary;
  }
}

/** The minute's line on stderr. */
export function minuteText(m: MinuteSummary, writeBack: boolean, cursor: Cursor): string {
  return `follow: ${m.results} results posted${writeBack ? `, ${m.written} written back` : ""} in the last ${m.seconds.toFixed(0)} s; lag behind the validator at most ${m.lagMax.toFixed(1)} s; cursor ${new Date(cursor.mod_time * 1000).toISOString()}`;
}
