/**
 * Issue 24 finding 8: every write that loses a race on a UNIQUE key (a concurrent request
 * inserted the same rows first) follows one policy: it is run again from a fresh read a few
 * times, and a race still lost after that is a 409 `concurrent_write` with Retry-After, never
 * a 500. The race is a real UNIQUE violation inside the write's D1 batch (faulty-d1.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONFLICT_ATTEMPTS } from "../../src/http/conflict-retry";
import { expectError, setupProject, validPass } from "../support/api-helpers";
import { T0, createAm, rpcBody, totals } from "../am/support";
import { dbState } from "../security/db-state";
import { faultyD1 } from "../security/faulty-d1";
import { callWithRaw } from "../security/support";
import { type CallRow, callRow } from "../support/api";

async function setups(): Promise<Record<string, CallRow>> {
  const p = await setupProject("race");
  await p.api.ok("PUT", "/apps/climate", { credit_mode: "trickle", trickle_max_runtime: 7200 });
  await p.api.ok("PUT", "/hosts/1", { user_id: 0, p_fpops: 3e9 });
  const am = await createAm("race");
  const at = <P extends string>(path: P) => `/v1/projects/${p.slug}${path}` as const;
  return {
    passes: callRow("POST", at("/passes"), p.token, validPass(1, 10)),
    trickles: callRow("POST", at("/trickles"), p.token, { now: 6000, messages: [{ id: 1, app: "climate", host_id: 1, runtime: 3600 }] }),
    errors: callRow("POST", at("/errors"), p.token, { now: 6000, results: [{ id: 99, host_id: 10, app_version_id: 1, outcome: "error" }] }),
    rpcs: callRow("POST", `/v1/am/${am.slug}/hosts/4/rpcs`, am.token, rpcBody(T0, [totals("https://race.example/")])),
  };
}

describe("a write that keeps losing a race on a UNIQUE key", () => {
  it("passes, trickles, errors and RPCs: 409 concurrent_write with Retry-After after the same number of tries, nothing written", async () => {
    const posts = await setups();
    for (const [route, post] of Object.entries(posts)) {
      const before = await dbState();
      const faulty = faultyD1(env.DB, { conflicts: 1000 });
      const res = await callWithRaw({ DB: faulty.db }, post.method, post.path, { token: post.token, body: post.body });
      const error = expectError(res, 409, "concurrent_write");
      expect(error.message, route).toContain("retry");
      expect(res.headers?.get("Retry-After"), route).toBe("1");
      expect(faulty.fired, route).toHaveLength(CONFLICT_ATTEMPTS);
      expect(await dbState(), route).toEqual(before);
    }
  });

  it("a race lost fewer times than the tries allow is answered 200, written once", async () => {
    const posts = await setups();
    for (const [route, post] of Object.entries(posts)) {
      const faulty = faultyD1(env.DB, { conflicts: CONFLICT_ATTEMPTS - 1 });
      const res = await callWithRaw({ DB: faulty.db }, post.method, post.path, { token: post.token, body: post.body });
      expect(res.status, `${route}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(faulty.fired, route).toHaveLength(CONFLICT_ATTEMPTS - 1);
    }
  });
});
