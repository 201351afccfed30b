/**
 * Per-token rate limit. On Cloudflare the Rate Limiting binding (`RATE_LIMITER`) counts; where
 * it is absent (a deployment without it, a test app) an in-memory fixed window per isolate
 * does, `RATE_LIMIT_PER_MINUTE` per token and minute. Over the limit: 429 with Retry-After.
 */
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "./errors";

/** The binding's window (wrangler.jsonc `simple.period`) and the fallback's. */
export const RATE_LIMIT_PERIOD_SECONDS = 60;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;

/** Fallback counters: key → [window number, count]. Bounded: cleared when a new window starts. */
const counters = new Map<string, [number, number]>();
let currentWindow = -1;

function fallbackAllows(key: string, limit: number, nowMs: number): boolean {
  const window = Math.floor(nowMs / 1000 / RATE_LIMIT_PERIOD_SECONDS);
  if (window !== currentWindow) {
    counters.clear();
    currentWindow = window;
  }
  const held = counters.get(key);
  const count = held && held[0] === window ? held[1] : 0;
  if (count >= limit) return false;
  counters.set(key, [window, count + 1]);
  return true;
}

/** Seconds until the current window ends (windows are aligned to the clock), at least 1. */
export function retryAfterSeconds(nowMs: number): number {
  const into = (nowMs / 1000) % RATE_LIMIT_PERIOD_SECONDS;
  return Math.max(1, Math.ceil(RATE_LIMIT_PERIOD_SECONDS - into));
}

/** Counts one request under `key` (never the token itself); throws 429 when over the limit. */
export async function enforceRateLimit(c: Context<AppEnv>, key: string): Promise<void> {
  const now = Date.now();
  let allowed: boolean;
  if (c.env.RATE_LIMITER) {
    allowed = (await c.env.RATE_LIMITER.limit({ key })).success;
  } else {
    const configured = Number(c.env.RATE_LIMIT_PER_MINUTE);
    const limit = Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_RATE_LIMIT_PER_MINUTE;
    allowed = fallbackAllows(key, limit, now);
  }
  if (!allowed) {
    const wait = retryAfterSeconds(now);
    throw new ApiError(429, "rate_limited", `too many requests with this token; retry in ${wait} s`, undefined, {
      "Retry-After": String(wait),
    });
  }
}
