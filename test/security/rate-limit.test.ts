/**
 * Rate limits per project: over the limit a request gets 429 `rate_limited` with Retry-After,
 * in the error shape, and changes nothing; a client that waits Retry-After gets through, and
 * its pass is credited once. Both counters are tested: the Workers binding (miniflare's, 3 per
 * 10 s) and the in-memory fallback (RATE_LIMIT_PER_PERIOD=3). Windows follow the clock, so a
 * burst may straddle a boundary: at most 3 requests per window it touched pass before the
 * first 429 (2 × 3 for a burst under 10 s; a loaded machine may take longer).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type ApiResponse } from "../support/api";
import type { components } from "../support/api-types";
import { expectError, setupProject, validPass } from "../support/api-helpers";
import { callWith } from "./support";

const LIMIT = 3;
const PERIOD_SECONDS = 10;
const BINDING = { RATE_LIMITER: env.RATE_LIMITER_TIGHT };
const FALLBACK = { RATE_LIMITER: undefined, RATE_LIMIT_PER_PERIOD: String(LIMIT) };

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** Sum of the credit a pass's answer granted. */
const granted = (res: ApiResponse<components["schemas"]["PassResponse"]>) =>
  res.body.workunits.reduce((sum, wu) => sum + wu.results.reduce((s, r) => s + r.granted_credit, 0), 0);

for (const [name, overrides] of [
  ["the Workers binding", BINDING],
  ["the in-memory fallback", FALLBACK],
] as const) {
  describe(`rate limit with ${name}`, () => {
    it("answers a burst 429 with Retry-After; the client that waits gets through, credited once", async () => {
      const { slug, token } = await setupProject("rl");
      const post = (wu: number) => callWith(overrides, "POST", `/v1/projects/${slug}/passes`, { token, body: validPass(wu, 100 + wu) });
      let total = 0;
      let limited: ApiResponse | undefined;
      let wu = 1;
      const windowOf = () => Math.floor(Date.now() / 1000 / PERIOD_SECONDS);
      const firstWindow = windowOf();
      for (; wu <= 5 * LIMIT; wu++) {
        const res = await post(wu);
        if (res.status === 429) {
          limited = res;
          break;
        }
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        total += granted(res);
      }
      const windowsTouched = windowOf() - firstWindow + 1;
      expect(limited, `no 429 after ${wu - 1} passes over ${windowsTouched} windows`).toBeDefined();
      expect(wu).toBeGreaterThan(LIMIT);
      expect(wu - 1, `passes before the 429, over ${windowsTouched} windows`).toBeLessThanOrEqual(LIMIT * windowsTouched);
      const error = expectError(limited!, 429, "rate_limited");
      expect(error.message).toMatch(/retry/);
      const retryAfter = Number(limited!.headers!.get("Retry-After"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(PERIOD_SECONDS);
      expect(limited!.headers!.get("X-Request-Id")).not.toBeNull();
      // The refused pass wrote nothing: its host does not exist yet.
      const host = await callWith(overrides, "GET", `/v1/projects/${slug}/hosts/${100 + wu}`, {});
      expect(host.status).toBe(404);

      await sleep(retryAfter);
      const retried = await post(wu);
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect(retried.body.workunits[0]!.replayed).toBe(false);
      total += granted(retried);
      expect(total).toBeGreaterThan(0);
      // Every pass credited exactly once: the project's total is the sum of what was granted.
      const project = await callWith({}, "GET", `/v1/projects/${slug}`, { token });
      expect(project.body.total_credit).toBeCloseTo(total, 9);
    });

    it("counts per project: another project is not limited by this one", async () => {
      const busy = await setupProject("rlb");
      const calm = await setupProject("rlc");
      const put = (p: { slug: string; token: string }, n: number) =>
        callWith(overrides, "PUT", `/v1/projects/${p.slug}/apps/x${n}`, { token: p.token, body: {} });
      let n = 0;
      const firstWindow = Math.floor(Date.now() / 1000 / PERIOD_SECONDS);
      while ((await put(busy, ++n)).status !== 429) {
        const windowsTouched = Math.floor(Date.now() / 1000 / PERIOD_SECONDS) - firstWindow + 1;
        expect(n).toBeLessThanOrEqual(LIMIT * windowsTouched);
      }
      expect((await put(calm, 1)).status).toBe(200);
    });
  });
}
