/**
 * A Workers rate-limit binding's limit and period are fixed in wrangler.jsonc, while the
 * fallback limiter and Retry-After use src/limits.ts: the two must say the same (as the crons
 * of wrangler.jsonc must equal the jobs', test/jobs/schedule.test.ts).
 */
import { describe, expect, it } from "vitest";
import wranglerConfig from "../../wrangler.jsonc?raw";
import { RATE_LIMIT_TIERS, TOKEN_ISSUE_LIMIT } from "../../src/limits";

interface RateLimitBinding {
  name: string;
  namespace_id: string;
  simple: { limit: number; period: number };
}

/** wrangler.jsonc is JSON with // comments (none inside strings that matter here). */
function configuredRateLimits(): RateLimitBinding[] {
  return JSON.parse(wranglerConfig.replace(/^\s*\/\/.*$/gm, "")).ratelimits;
}

describe("rate-limit bindings", () => {
  it("wrangler.jsonc binds exactly the limits of src/limits.ts, with their limit and period", () => {
    const declared = [...Object.values(RATE_LIMIT_TIERS), TOKEN_ISSUE_LIMIT].map((l) => ({
      name: l.binding,
      limit: l.limit,
      period: l.periodSeconds,
    }));
    const configured = configuredRateLimits().map((b) => ({ name: b.name, limit: b.simple.limit, period: b.simple.period }));
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(configured.sort(byName)).toEqual(declared.sort(byName));
  });

  it("each binding counts apart: no two share a namespace", () => {
    const namespaces = configuredRateLimits().map((b) => b.namespace_id);
    expect(new Set(namespaces).size).toBe(namespaces.length);
  });
});
