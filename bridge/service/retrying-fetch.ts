/**
 * fetch that waits and tries again while the service is busy or unreachable: 429 and 503 (the
 * service's "retry": rate limited, database unavailable) honour Retry-After, network failures
 * back off exponentially (with jitter), each retry is reported (onRetry), and it gives up with a
 * clear error after `maxAttempts`. Any other answer, a 500 included, is passed back at once: a
 * 500 is a bug that the same request will hit again (the run stops with exit 75, and a restart
 * is the retry: exit-codes.ts). Every write the bridge makes is idempotent
 * (passes and errors by result id, PUTs by id), so sending one twice is safe.
 *
 * Each attempt has a time limit (sending to the answer's last byte) and the answer a size limit
 * (capped-answer.ts): a service that never answers, or answers without end, is retried like one
 * that is down, instead of holding a run silent for undici's 300 s or exhausting its memory.
 */
import { AnswerTooLarge, DEFAULT_MAX_ANSWER_BYTES, readCapped } from "./capped-answer";
import { BridgeError } from "../shared/errors";

export interface RetryOptions {
  maxAttempts: number;
  /** The first backoff; doubled each time up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Each attempt's limit, from sending the request to the answer's last byte (default DEFAULT_REQUEST_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The largest answer read (default DEFAULT_MAX_ANSWER_BYTES); a larger one is dropped and the request retried. */
  maxAnswerBytes?: number;
  /** Told before each wait: what failed, how long it waits, and which attempt comes next. */
  onRetry?: (why: string, delayMs: number, nextAttempt: number, maxAttempts: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * 120 s an attempt (--request-timeout). The slowest legitimate request measured is the largest
 * pass batch (5,000 results; bench/big-pass.ts, BENCHMARKS.md "The largest pass"): 9.4 s
 * through `wrangler dev` at load 20 on 2 cores, under 1 s on a quiet machine; a bridge request
 * of 200 results takes 0.3 s. A Worker has 30 s of CPU a request, and a D1 query at most 30 s.
 * 120 s is 13 times the slowest measured and more than a Worker may spend, so only a service
 * that will not answer reaches it.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 12, baseDelayMs: 500, maxDelayMs: 60_000 };

const RETRIED_STATUSES = new Set([429, 503]);

/** Retry-After as seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs = Date.now()): number | null {
  if (header === null || header.trim() === "") return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

/**
 * `name` is how retries and the final error name the request (api-client.ts: "POST 50 passes at
 * 1700000000…1700000049"); without it, its method and path (its URL for a network failure).
 */
export function retryingFetch(options: RetryOptions = DEFAULT_RETRY, inner: typeof fetch = fetch, name?: string): typeof fetch {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const maxBytes = options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  return async (input, init) => {
    const request = new Request(input, init);
    const label = name ?? `${request.method} ${new URL(request.url).pathname}`;
    let why: string;
    let failure: Failure;
    for (let attempt = 1; ; attempt++) {
      let delay = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
      delay = delay / 2 + Math.random() * (delay / 2);
      // The caller's own abort passes through; the time limit is this attempt's alone.
      const attemptAbort = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        attemptAbort.abort();
      }, timeoutMs);
      const callerAborted = () => attemptAbort.abort(request.signal.reason);
      request.signal.addEventListener("abort", callerAborted, { once: true });
      try {
        const response = await inner(request.clone(), { signal: attemptAbort.signal });
        if (!RETRIED_STATUSES.has(response.status)) return await readCapped(response, maxBytes);
        why = `${label}: ${response.status}`;
        failure = "unavailable";
        delay = retryAfterMs(response.headers.get("retry-after")) ?? delay;
        await response.body?.cancel();
      } catch (e) {
        // The bridge's own refusal (its one-run guard lost, api-client.ts): not the network's failure.
        if (e instanceof BridgeError || request.signal.aborted) throw e;
        failure = timedOut ? "timeout" : e instanceof AnswerTooLarge ? "too_large" : "unavailable";
        if (failure === "timeout") why = `${label}: no answer within ${timeoutMs / 1000} s`;
        else if (failure === "too_large") why = `${label}: ${(e as Error).message}`;
        else why = `${name ?? `${request.method} ${request.url}`}: ${(e as Error).cause ?? (e as Error).message}`;
      } finally {
        clearTimeout(timer);
        request.signal.removeEventListener("abort", callerAborted);
      }
      if (attempt >= options.maxAttempts) throw givenUp(attempt, why, failure);
      options.onRetry?.(why, delay, attempt + 1, options.maxAttempts);
      await sleep(delay);
    }
  };
}

type Failure = "unavailable" | "timeout" | "too_large";

/** The request failed its last attempt: nothing of it was used, and the next run sends it again. */
function givenUp(attempts: number, why: string, failure: Failure): BridgeError {
  const resume =
    "Run the bridge again to resume: the next run sends this request again from the saved cursor (nothing of it was written to BOINC's database).";
  const message =
    failure === "too_large"
      ? `no usable answer from the service after ${attempts} attempts (${why}); is --url the Cobblestone service? (The cap: --max-answer-mib.) ${resume}`
      : `the service did not answer after ${attempts} attempts (${why}); is it up?${failure === "timeout" ? " (The time limit: --request-timeout.)" : ""} ${resume}`;
  return new BridgeError(message, { transient: true });
}
