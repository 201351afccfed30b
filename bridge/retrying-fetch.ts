/**
 * fetch that waits and tries again while the service is busy or down: 429 and 503 honour
 * Retry-After, other 5xx and network failures back off exponentially (with jitter), and it
 * gives up with a clear error after `maxAttempts`. Every write the bridge makes is idempotent
 * (passes and errors by result id, PUTs by id), so sending one twice is safe.
 */
import { BridgeError } from "./errors";

export interface RetryOptions {
  maxAttempts: number;
  /** The first backoff; doubled each time up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  onRetry?: (why: string, delayMs: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 12, baseDelayMs: 500, maxDelayMs: 60_000 };

const RETRIED_STATUSES = new Set([429, 500, 502, 503, 504]);

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
    let why = "";
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
        why = `${request.method} ${request.url}: ${(e as Error).cause ?? (e as Error).message}`;
      }
      if (attempt >= options.maxAttempts) {
        throw new BridgeError(`the service did not answer after ${attempt} attempts (${why}); is it up? Run the bridge again to resume.`);
      }
      options.onRetry?.(why, delay);
      await sleep(delay);
    }
  };
}
