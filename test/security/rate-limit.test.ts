/**
 * Per-token rate limit: over the limit a request gets 429 `rate_limited` with Retry-After, in
 * the error shape, and changes nothing; other tokens are not affected. Both counters are
 * tested: the Workers binding (miniflare's, with a limit of 3 a minute) and the in-memory
 * fallback (RATE_LIMIT_PER_MINUTE=3). Windows follow the clock, so a run may straddle one
 * boundary: at most 2 × 3 requests pass before the first 429.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createProject } from "../support/api";
import { expectError } from "../api/helpers";
import { callWith } from "./support";

const LIMIT = 3;
const BINDING = { RATE_LIMITER: env.RATE_LIMITER_TIGHT };
const FALLBACK = { RATE_LIMITER: undefined, RATE_LIMIT_PER_MINUTE: String(LIMIT) };

async function untilLimited(overrides: Record<string, unknown>, slug: string, token: string) {
  for (let n = 1; n <= 2 * LIMIT + 1; n++) {
    const res = await callWith(overrides, "PUT", `/v1/projects/${slug}/apps/app${n}`, { token, body: {} });
    if (res.status === 429) return { res, n };
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  throw new Error(`no 429 after ${2 * LIMIT + 1} requests`);
}

for (const [name, overrides] of [
  ["the Workers binding", BINDING],
  ["the in-memory fallback", FALLBACK],
] as const) {
  describe(`rate limit with ${name}`, () => {
    it("answers 429 with Retry-After once a token is over its limit, and writes nothing", async () => {
      const { slug, token } = await createProject("rl");
      const { res, n } = await untilLimited(overrides, slug, token);
      expect(n).toBeGreaterThan(LIMIT);
      const error = expectError(res, 429, "rate_limited");
      expect(error.message).toMatch(/retry/);
      const retryAfter = Number(res.headers!.get("Retry-After"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(res.headers!.get("X-Request-Id")).not.toBeNull();
      // The refused registration did not happen.
      const apps = await callWith({}, "GET", `/v1/projects/${slug}/apps`, { token });
      expect(apps.body.apps.map((a: { name: string }) => a.name)).not.toContain(`app${n}`);
      expect(apps.body.apps).toHaveLength(n - 1);
    });

    it("counts per token: another project's token is not limited by this one", async () => {
      const busy = await createProject("rlb");
      const calm = await createProject("rlc");
      await untilLimited(overrides, busy.slug, busy.token);
      const res = await callWith(overrides, "PUT", `/v1/projects/${calm.slug}/apps/a`, { token: calm.token, body: {} });
      expect(res.status).toBe(200);
    });
  });
}
