/**
 * How a run is doing, for a monitor (metrics.ts renders it): counters and times the run pushes
 * as things happen, the live numbers it lends (`attach`) to be read when asked, and what the
 * process before it left in the metrics file (`carryOver`): when a round last went through, how
 * the last process ended, and whether that was a failure no round has gone through since.
 */
import { isFailure } from "../shared/exit-codes";

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
  /** The cursor's mod_time (the database's clock): every result stamped up to it is answered and saved. */
  cursor(): number | null;
}

const NONE: StatusSources = { posted: () => 0, written: () => 0, backlog: () => 0, writeBackRetries: () => 0, cursor: () => null };

/** A process's end: its exit status and when (Unix seconds). */
export interface ProcessExit {
  code: number;
  at: number;
}

/** What a process leaves for the next one (metrics-file.ts reads it back from the file). */
export interface CarriedStatus {
  /** When a round last went through (Unix seconds); null if none ever did. */
  lastPoll: number | null;
  lastExit: ProcessExit | null;
  /** A failed exit, and no round has gone through since. */
  failed: boolean;
}

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
  /** How the last process ended (this one, once it does); null when nothing is known. */
  private lastExit: ProcessExit | null = null;
  /** The last process ended in a failure (exit-codes.ts) and no round has gone through since, in any process. */
  private failing = false;
  private polledOnce = false;

  constructor(
    readonly project: string,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.startTime = nowMs() / 1000;
    this.lastPollAt = this.startTime;
  }

  /**
   * What the process before this one left: its end, whether that was a failure no round has
   * gone through since, and when a round last went through (kept until this process's first:
   * a restart does not make a bridge that polls no more look as if it just did).
   */
  carryOver(previous: CarriedStatus): void {
    this.lastExit = previous.lastExit;
    this.failing = previous.failed;
    if (previous.lastPoll !== null && !this.polledOnce) this.lastPollAt = previous.lastPoll;
  }

  /** This process ends with `code` (exit-codes.ts). */
  exited(code: number): void {
    this.lastExit = { code, at: this.nowMs() / 1000 };
    if (isFailure(code)) this.failing = true;
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
    this.polledOnce = true;
    this.failing = false;
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
      cursor: this.sources.cursor(),
      lastExit: this.lastExit,
      failed: this.failing,
    };
  }

  private forgetOldLags(now: number): void {
    while (this.lags.length > 0 && this.lags[0]!.at < now - LAG_WINDOW_MS) this.lags.shift();
  }
}

export type StatusSnapshot = ReturnType<BridgeStatus["snapshot"]>;
