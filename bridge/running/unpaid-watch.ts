/**
 * When a --write-back run counts its unpaid results (unpaid.ts) for the metric: the count is a
 * scan of BOINC's result table, so --follow counts at most once a minute (not at every 2 s
 * poll), beside the polls rather than in their way, and a one-shot run counts once at its end.
 */
import type { BridgeStatus } from "../telling/status";

export const UNPAID_COUNT_EVERY_MS = 60_000;

export class UnpaidWatch {
  private lastStart = -Infinity;
  private running: Promise<void> | null = null;
  private lastTold = 0;

  constructor(
    /** The count now; null while it cannot be made yet (the write-back not open: no switch point). */
    private readonly count: () => Promise<number | null>,
    private readonly status: BridgeStatus,
    /** A count above 0 when the last told was not (and a failed count): a warning. */
    private readonly warn: (msg: string, fields: Record<string, number | string>) => void,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** After a poll of --follow: a count if none began in the last minute and none runs; not awaited, so the polls go on meanwhile. */
  poll(): void {
    const now = this.nowMs();
    if (this.running || now - this.lastStart < UNPAID_COUNT_EVERY_MS) return;
    this.lastStart = now;
    this.running = this.countNow().finally(() => (this.running = null));
  }

  /** Counts now; a failure is told, and the metric keeps its last count and time (a stale time is what the alert sees). */
  async countNow(): Promise<void> {
    try {
      const n = await this.count();
      if (n === null) return;
      this.status.unpaidCounted(n, this.nowMs() / 1000);
      if (n > 0 && n !== this.lastTold) {
        this.warn(
          `write-back: ${n} valid result${n === 1 ? "" : "s"} reported after the switch point ${n === 1 ? "is" : "are"} still unpaid 5 minutes after validation; \`cobblestone-bridge audit\` lists them`,
          { unpaid: n },
        );
      }
      this.lastTold = n;
    } catch (e) {
      this.warn(`write-back: cannot count the unpaid results: ${(e as Error).message}`, { reason: (e as Error).message });
    }
  }

  /** The count in flight, ended (before the run closes the pool it reads through). */
  async settle(): Promise<void> {
    await this.running;
  }
}
