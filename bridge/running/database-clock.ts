/**
 * --follow measures its lag by the database's clock, which stamps mod_time: the database's clock
 * minus this machine's, as the last poll read it, and when that was (this machine's monotonic
 * clock, to see how long ago a poll was even if the wall clock moved).
 */
export class DatabaseClock {
  private offset = 0;
  private lastPollMs = 0;

  constructor(
    private readonly nowMs: () => number = Date.now,
    private readonly monotonicMs: () => number = () => performance.now(),
  ) {}

  /** A poll read the database's clock: `seen`, in Unix seconds. Returns the seconds since the poll before. */
  polled(seen: number): number {
    const since = (this.monotonicMs() - this.lastPollMs) / 1000;
    this.offset = seen - this.nowMs() / 1000;
    this.lastPollMs = this.monotonicMs();
    return since;
  }

  /** Now by the database's clock, in Unix seconds. */
  now(): number {
    return this.nowMs() / 1000 + this.offset;
  }
}
