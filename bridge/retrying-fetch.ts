/**
 * fetch that waits and tries again while the service is busy or unreachable: 429 and 503 (the
 * service's "retry": rate limited, database unavailable) honour Retry-After, network failures
 * back off exponentially (with jitter), each retry is reported (onRetry), and it gives up with a
 * clear error after `maxAttempts`. Any other answer, a 500 included, is passed back at once: a
 * 500 is a bug that the same request will hit again. Every write the bridge makes is idempotent
 * (passes and errors by result id, PUTs by id), so sending one twice is safe.
 */
import { BridgeError } from "./errors";

export interface RetryOptions {
  maxAttempts: number;
  /** The first backoff; doubled each time up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Told before each wait: what failed, how long it waits, and which attempt comes next. */
  onRetry?: (why: string, delayMs: number, nextAttempt: number, maxAttempts: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

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

export function retryingFetch(options: RetryOptions = DEFAULT_RETRY, inner: typeof fetch = fetch): typeof fetch {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  return async (input, init) => {
    const request = new Request(input, init);
    let why: string;
    for (let attempt = 1; ; attempt++) {
      let delay = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
      delay = delay / 2 + Math.random() * (delay / 2);
      try {
        const response = await inner(request.clone());
        if (!RETRIED_STATUSES.has(response.status)) return response;
        why = `${request.method} ${new URL(request.url).pathname}: ${response.status}`;
        delay = retryAfterMs(response.headers.get("retry-after")) ?? delay;
        await response.body?.cancel();
      } catch (e) {
        // The bridge's own refusal (its one-run guard lost, api-client.ts): not the network's failure.
        if (e instanceof BridgeError) throw e;
        why = `${request.method} ${request.url}: ${(e as Error).cause ?? (e as Error).message}`;
      }
      if (attempt >= options.maxAttempts) {
        throw new BridgeError(`the service did not answer after ${attempt} attempts (${why}); is it up? Run the bridge again to resume.`, {
          transient: true,
        });
      }
      options.onRetry?.(why, delay, attempt + 1, options.maxAttempts);
      await sleep(delay);
    }
  };
}
