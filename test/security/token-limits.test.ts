/**
 * Tokens cannot be multiplied: at most MAX_LIVE_TOKENS live tokens per project (409 beyond,
 * writing nothing), issuing is rate limited on its own, and the operator (only) sets a
 * project's rate-limit tier, which then decides its budget.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_LIVE_TOKENS, RATE_LIMIT_TIERS } from "../../src/limits";
import { ADMIN_TOKEN, request, createProject, rawRequest } from "../support/api";
import { expectError } from "../support/api-helpers";
import { callWith } from "./support";

const liveTokens = async (slug: string, token: string) =>
  (await request("GET", `/v1/projects/${slug}/tokens`, { token })).body.tokens as { id: number }[];

describe("live tokens per project", () => {
  it(`issues up to ${MAX_LIVE_TOKENS} live tokens, then 409 until one is revoked`, async () => {
    const { slug, token } = await createProject("cap");
    for (let n = 2; n <= MAX_LIVE_TOKENS; n++) {
      const res = await request("POST", `/v1/projects/${slug}/tokens`, { token });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    expect(await liveTokens(slug, token)).toHaveLength(MAX_LIVE_TOKENS);
    const refused = await request("POST", `/v1/projects/${slug}/tokens`, { token: ADMIN_TOKEN });
    expect(expectError(refused, 409, "conflict").message).toMatch(new RegExp(`${MAX_LIVE_TOKENS} live tokens`));
    // Nothing written: still 20 tokens, and none of them got a shorter deadline.
    const after = (await request("GET", `/v1/projects/${slug}/tokens`, { token })).body.tokens as { expires_at: number | null }[];
    expect(after).toHaveLength(MAX_LIVE_TOKENS);
    expect(after.filter((t) => t.expires_at === null)).toHaveLength(1);

    const newest = (await liveTokens(slug, token)).at(-1)!;
    expect((await request("DELETE", `/v1/projects/${slug}/tokens/${newest.id}`, { token })).status).toBe(200);
    expect((await request("POST", `/v1/projects/${slug}/tokens`, { token })).status).toBe(201);
    expect(await liveTokens(slug, token)).toHaveLength(MAX_LIVE_TOKENS);
  });
});

describe("issuing tokens is rate limited", () => {
  it("answers 429 once the project issued its share (2 a minute here), and issues nothing", async () => {
    const { slug, token } = await createProject("issue");
    const overrides = { RATE_LIMITER_TOKENS: env.RATE_LIMITER_TIGHT_ISSUE };
    for (let n = 0; n < 2; n++) expect((await callWith(overrides, "POST", `/v1/projects/${slug}/tokens`, { token })).status).toBe(201);
    const before = (await liveTokens(slug, token)).length;
    // The admin token issues for the project under the project's own count.
    const limited = await callWith(overrides, "POST", `/v1/projects/${slug}/tokens`, { token: ADMIN_TOKEN });
    expectError(limited, 429, "rate_limited");
    expect(Number(limited.headers!.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await liveTokens(slug, token)).toHaveLength(before);
    // Other routes are not held by the issuing limit.
    expect((await callWith(overrides, "PUT", `/v1/projects/${slug}/apps/a`, { token, body: {} })).status).toBe(200);
  });
});

describe("a project's rate-limit tier", () => {
  it("is standard by default, set by the operator only, and decides which limit counts", async () => {
    const { slug, token } = await createProject("tier");
    const path = `/v1/projects/${slug}/rate-limit` as const;
    const standard = await request("GET", path, { token });
    expect(standard.body).toEqual({ slug, tier: "standard", limit: RATE_LIMIT_TIERS.standard.limit, period_seconds: 10 });
    // At least 100 requests a second for a project's validator by default.
    expect(RATE_LIMIT_TIERS.standard.limit / RATE_LIMIT_TIERS.standard.periodSeconds).toBeGreaterThanOrEqual(100);

    expectError(await request("PUT", path, { token, body: { tier: "high" } }), 401, "unauthorized");
    expectError(await rawRequest("PUT", path, { token: ADMIN_TOKEN, body: { tier: "unlimited" } }), 400, "validation_failed");
    const set = await request("PUT", path, { token: ADMIN_TOKEN, body: { tier: "low" } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ slug, tier: "low", limit: RATE_LIMIT_TIERS.low.limit, period_seconds: 10 });
    expect((await request("GET", path, { token })).body.tier).toBe("low");

    // The low tier's binding (made tight here) now counts the project; the standard one no longer does.
    const overrides = { RATE_LIMITER_LOW: env.RATE_LIMITER_TIGHT, RATE_LIMITER: undefined, RATE_LIMIT_PER_PERIOD: "1000000" };
    let n = 0;
    while ((await callWith(overrides, "PUT", `/v1/projects/${slug}/apps/t${++n}`, { token, body: {} })).status !== 429) {
      expect(n).toBeLessThanOrEqual(6);
    }
  });
});
