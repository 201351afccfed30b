/**
 * The run's rounds: one for a backfill; with --follow one per poll until the signal aborts,
 * backing off while the service or the database is unavailable (5 s doubling to 5 min) and
 * reconnecting before the next try. A refusal or a bug stops it.
 */
import { isTransient } from "../shared/errors";

/** --follow's back-off while the service or the database is unavailable: 5 s doubling to 5 min. */
export const BACKOFF_MS = { first: 5_000, max: 300_000 };

export interface FollowLoopParts {
  /** --follow's seconds between polls; null: one round (a backfill). */
  pollSeconds: number | null;
  signal?: AbortSignal;
  /** One round: the first reads the rows opened at the start, each later one polls the database. */
  poll(first: boolean): Promise<void>;
  /** A round stopped on the signal: no other follows. */
  interrupted(): boolean;
  /** After a failed round: what was in flight ends, what was not answered is dropped. */
  recover(): Promise<void>;
  /** --follow, after a transient failure: the connections again (a failure that is not transient stops the run). */
  reconnect(): Promise<void>;
  /** Before each round: the place for the run guard's check. */
  beforePoll?: () => Promise<void>;
  /**
   * After each successful round, once all its writes are done (a backfill's one round too): the
   * place for maintenance between polls. A failure counts as the round's.
   */
  afterPoll?: () => Promise<void>;
  /** After each successful round (and its afterPoll): the last successful poll, the minute's summary. */
  polled?: () => void;
  /** A transient failure, and how long the loop waits before it tries again. */
  backingOff(e: Error, ms: number): void;
  /** Waits `ms`, or less when the signal aborts (tests pass their own clock). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export async function followLoop(parts: FollowLoopParts): Promise<void> {
  const sleep = parts.sleep ?? sleepUnlessAborted;
  const { pollSeconds, signal } = parts;
  let backoff = 0;
  for (let n = 0; ; n++) {
    if (n > 0) {
      if (pollSeconds === null || parts.interrupted() || signal?.aborted) break;
      await sleep(backoff || pollSeconds * 1000, signal);
      if (signal?.aborted) break;
    }
    try {
      await parts.beforePoll?.();
      await parts.poll(n === 0);
      await parts.afterPoll?.();
      backoff = 0;
    } catch (e) {
      // The request in flight, and the write of the last one answered, end before the run does
      // (or, --follow, before it reads again from the saved cursor): no save after the run's end.
      await parts.recover();
      if (pollSeconds === null || !isTransient(e)) throw e;
      backoff = Math.min(BACKOFF_MS.max, Math.max(BACKOFF_MS.first, backoff * 2));
      parts.backingOff(e as Error, backoff);
      await parts.reconnect().catch((again: unknown) => {
        if (!isTransient(again)) throw again;
      });
      continue;
    }
    parts.polled?.();
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done);
  });
}
