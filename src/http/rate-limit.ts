/**
 * Rate limits per project (and per account manager, central contributor, admin): every token of
 * one holder shares one counter, so minting tokens buys no rate. On Cloudflare a Rate Limiting
 * binding counts (one per limit: src/limits.ts); where it is absent (a deployment without
 * it, a test app) an in-memory fixed window per isolate does, with the same limit, or
 * `RATE_LIMIT_PER_PERIOD` when set. Over the limit: 429 with Retry-After.
 */
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "./errors";
import { DEFAULT_RATE_LIMIT_TIER, RATE_LIMIT_TIERS, TOKEN_ISSUE_LIMIT, type RateLimitTierName } from "../limits";

interface Limit {
  readonly binding: "RATE_LIMITER" | "RATE_LIMITER_LOW" | "RATE_LIMITER_HIGH" | "RATE_LIMITER_TOKENS";
  readonly limit: number;
  readonly periodSeconds: number;
}

/** Fallback counters per period: the current window's number and its counts by key (dropped when it ends). */
const windows = new Map<number, { window: number; counts: Map<string, number> }>();

function fallbackAllows(key: string, limit: number, periodSeconds: number, nowMs: number): boolean {
  const window = Math.floor(nowMs / 1000 / periodSeconds);
  let current = windows.get(periodSeconds);
  if (!current || current.window !== window) {
    current = { window, counts: new Map() };
    windows.set(periodSeconds, current);
  }
  const count = current.counts.get(key) ?? 0;
  if (count >= limit) return false;
  current.counts.set(key, count + 1);
  return true;
}

/** Seconds until the current window ends (windows are aligned to the clock), at least 1. */
function retryAfterSeconds(nowMs: number, periodSeconds: number): number {
  const into = (nowMs / 1000) % periodSeconds;
  return Math.max(1, Math.ceil(periodSeconds - into));
}

async function enforce(c: Context<AppEnv>, limit: Limit, key: string, what: string): Promise<void> {
  const now = Date.now();
  const binding = c.env[limit.binding];
  let allowed: boolean;
  if (binding) {
    allowed = (await binding.limit({ key })).success;
  } else {
    const max = c.var.settings.RATE_LIMIT_PER_PERIOD ?? limit.limit;
    allowed = fallbackAllows(`${limit.binding} ${key}`, max, limit.periodSeconds, now);
  }
  if (!allowed) {
    const wait = retryAfterSeconds(now, limit.periodSeconds);
    throw new ApiError(429, "rate_limited", `too many ${what}; retry in ${wait} s`, undefined, {
      "Retry-After": String(wait),
    });
  }
}

/**
 * Counts one request of the holder named by `key` ("p:<project id>", "am:<id>", …; never a
 * token) against its tier; throws 429 when over.
 */
export function enforceRateLimit(c: Context<AppEnv>, key: string, tier: RateLimitTierName = DEFAULT_RATE_LIMIT_TIER): Promise<void> {
  return enforce(c, RATE_LIMIT_TIERS[tier], key, "requests for this project or account");
}

/** Counts one token issued for the holder named by `key`; throws 429 when over. */
export function enforceTokenIssueLimit(c: Context<AppEnv>, key: string): Promise<void> {
  return enforce(c, TOKEN_ISSUE_LIMIT, `issue:${key}`, "tokens issued");
}
