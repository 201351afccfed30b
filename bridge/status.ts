/**
 * How a run is doing, for a monitor (metrics.ts renders it): counters and times the run pushes
 * as things happen, and the live numbers it lends (`attach`) to be read when asked.
 */

const LAG_WINDOW_MS = 60_000;

/** The live numbers, read at each scrape. */
export interface StatusSources {
  /** Validated results answered by the service (results posted). */
  posted(): number;
  /** Results written back into the BOINC database. */
  written(): number;
  /** Validated results read and put in passes, not yet answered and written back. */
  backlog(): number;
  /** Write-back transactions retried (deadlock, lock wait timeout). */
  writeBackRetries(): number;
}

const NONE: StatusSources = { posted: () => 0, written: () => 0, backlog: () => 0, writeBackRetries: () => 0 };

export type ErrorKind = "unavailable" | "fatal";

export class BridgeStatus {
  /** Unix seconds. */
  readonly startTime: number;
  /** --follow: the lag gauges mean something. */
  following = false;
  private guard = false;
  private lastPollAt: number;
  private serviceRetries = 0;
  private readonly errorCounts: Record<ErrorKind, number> = { unavailable: 0, fatal: 0 };
  private lastLag: number | null = null;
  /** Each written request's largest lag, with when it was measured (ms), over the last minute. */
  private lags: { at: number; lag: number }[] = [];
  private sources = NONE;
  /** --write-back: the last count of unpaid results (unpaid.ts) and when it was made (Unix seconds); null before the first. */
  private unpaid: { count: number; at: number } | null = null;
  private readonly pollListeners: (() => void)[] = [];

  constructor(
    readonly project: string,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.startTime = nowMs() / 1000;
    this.lastPollAt = this.startTime;
  }

  attach(sources: StatusSources): void {
    this.sources = sources;
  }

  /** Whether the run holds its run guard (today: from taking the database lock to releasing it). */
  setGuardHeld(held: boolean): void {
    this.guard = held;
  }

  retried(): void {
    this.serviceRetries++;
  }

  failed(kind: ErrorKind): void {
    this.errorCounts[kind]++;
  }

  /** A request written (--follow): the lag of its oldest result. */
  lagged(lag: number): void {
    const at = this.nowMs();
    this.lastLag = lag;
    this.lags.push({ at, lag });
    this.forgetOldLags(at);
  }

  unpaidCounted(count: number, at: number): void {
    this.unpaid = { count, at };
  }

  /** A round went through: the last successful poll is now. */
  polled(): void {
    this.lastPollAt = this.nowMs() / 1000;
    for (const l of this.pollListeners) l();
  }

  onPoll(listener: () => void): void {
    this.pollListeners.push(listener);
  }

  /** Everything a monitor reads, as of now. */
  snapshot() {
    this.forgetOldLags(this.nowMs());
    return {
      project: this.project,
      startTime: this.startTime,
      lastPoll: this.lastPollAt,
      guardHeld: this.guard,
      following: this.following,
      lagLast: this.lastLag,
      lagMaxMinute: this.lags.reduce((m, l) => Math.max(m, l.lag), 0),
      posted: this.sources.posted(),
      written: this.sources.written(),
      backlog: this.sources.backlog(),
      retries: { service: this.serviceRetries, write_back: this.sources.writeBackRetries() },
      errors: { ...this.errorCounts },
      unpaid: this.unpaid,
    };
  }

  private forgetOldLags(now: number): void {
    while (this.lags.length > 0 && this.lags[0]!.at < now - LAG_WINDOW_MS) this.lags.shift();
  }
}

export type StatusSnapshot = ReturnType<BridgeStatus["snapshot"]>;
