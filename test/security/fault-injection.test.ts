/**
 * Fault injection: D1 fails part-way through a write batch (first, second, middle or last
 * statement), after a batch (the answer lost), or on a single write. The request is refused
 * whole with 503 `unavailable` in the error shape, nothing is written, and a retry succeeds
 * with the credit a fault-free run grants; a retry after a lost answer is a replay, never a
 * second grant.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type PassBody, expectError, setupProject, validPass } from "../support/api-helpers";
import { ADMIN_TOKEN, callRow, rawRequest } from "../support/api";
import { EINSTEIN, createAm, rpcBody, totals } from "../am/support";
import { dbState } from "./db-state";
import { type Fault, faultyD1 } from "./faulty-d1";
import { callWith, callWithRaw } from "./support";
import type { components } from "../support/api-types";

const grants = (body: components["schemas"]["PassResponse"]) =>
  body.workunits.map((w) => ({ credit: w.credit, results: w.results.map((r) => [r.id, r.granted_credit, r.replayed]) }));

async function postWithFault(slug: string, token: string, body: PassBody, fault: Fault) {
  const faulty = faultyD1(env.DB, fault);
  const res = await callWith({ DB: faulty.db }, "POST", `/v1/projects/${slug}/passes`, { token, body });
  expect(faulty.fired, "the fault fired").toHaveLength(1);
  return { res, statements: faulty.fired[0]!.statements };
}

describe("D1 fails during a pass", () => {
  it("at the first, second, middle or last statement of the write batch: 503, nothing written, then a retry grants what a clean run grants", async () => {
    const control = await setupProject("clean");
    const faulted = await setupProject("fault");
    // A pass that is not the project's first: hosts and versions already hold statistics.
    await control.api.ok("POST", "/passes", validPass(1, 10));
    await faulted.api.ok("POST", "/passes", validPass(1, 10));
    const body = validPass(2, 10);
    const expected = await control.api.ok("POST", "/passes", body);

    const before = await dbState();
    const first = await postWithFault(faulted.slug, faulted.token, body, { atStatement: 1 });
    const size = first.statements;
    expect(size).toBeGreaterThan(3);
    const responses = [first.res];
    for (const at of [2, Math.floor(size / 2), 0])
      responses.push((await postWithFault(faulted.slug, faulted.token, body, { atStatement: at })).res);
    for (const res of responses) {
      const error = expectError(res, 503, "unavailable");
      expect(error.message).toMatch(/nothing was written/);
      expect(res.headers!.get("Retry-After")).toBe("1");
    }
    expect(await dbState()).toEqual(before);

    const retried = await faulted.api.ok("POST", "/passes", body);
    expect(grants(retried)).toEqual(grants(expected));
    expect(grants(retried).flatMap((w) => w.results.map((r) => r[2]))).toEqual([false, false]);
  });

  it("after the batch committed (the answer lost): 503, and the retry is a replay with the same credit, granted once", async () => {
    const control = await setupProject("clean2");
    const faulted = await setupProject("lost");
    const body = validPass(1, 10);
    const expected = await control.api.ok("POST", "/passes", body);
    const { res } = await postWithFault(faulted.slug, faulted.token, body, { afterBatch: true });
    expectError(res, 503, "unavailable");

    const retried = await faulted.api.ok("POST", "/passes", body);
    expect(retried.workunits[0]!.results.map((r) => r.replayed)).toEqual([true, true]);
    expect(retried.workunits[0]!.results.map((r) => r.granted_credit)).toEqual(expected.workunits[0]!.results.map((r) => r.granted_credit));
    const host = await faulted.api.ok("GET", "/hosts/10");
    const sum = expected.workunits[0]!.results.reduce((s: number, r) => s + r.granted_credit, 0);
    expect(host.total_credit).toBeCloseTo(sum, 9);
  });

  it("in every other write route's batch (first or last statement): 503, nothing written, the retry succeeds", async () => {
    const { slug, token, api } = await setupProject("routes");
    const am = await createAm("faultam");
    const cases = [
      callRow("POST", "/v1/projects", ADMIN_TOKEN, { slug: "born-after-a-fault", name: "x" }),
      callRow("PUT", `/v1/projects/${slug}/apps/late`, token, { host_scale_check: true }),
      callRow("PUT", `/v1/projects/${slug}/app-versions/9`, token, { app: "late", platform: "p", plan_class: "", version_num: 1 }),
      callRow("PUT", `/v1/projects/${slug}/hosts/77`, token, { name: "h" }),
      callRow("POST", `/v1/projects/${slug}/holders`, token, { hosts: [{ id: 78, create_time: 1000 }], users: [{ id: 79, name: "u" }] }),
      callRow("POST", `/v1/projects/${slug}/errors`, token, { results: [{ id: 901, host_id: 10, app_version_id: 1, outcome: "error" }] }),
      callRow("POST", `/v1/projects/${slug}/tokens`, token),
      callRow(
        "POST",
        `/v1/am/${am.slug}/hosts/5/rpcs`,
        am.token,
        rpcBody(Date.now() / 1000 - 60, [totals(EINSTEIN, { cpu_ec: 10, cpu_time: 100 })]),
      ),
    ];
    for (const { method, path, token: auth, body } of cases) {
      for (const atStatement of [1, 0]) {
        const before = await dbState();
        const faulty = faultyD1(env.DB, { atStatement });
        const res = await callWithRaw({ DB: faulty.db }, method, path, { token: auth, body });
        expect(faulty.fired, `${method} ${path} writes in a batch`).toHaveLength(1);
        expectError(res, 503, "unavailable");
        expect(await dbState(), `${method} ${path}`).toEqual(before);
      }
      const retried = await rawRequest(method, path, { token: auth, body });
      expect(retried.status, `${method} ${path}: ${JSON.stringify(retried.body)}`).toBeLessThan(300);
    }
    expect((await api.ok("GET", "/apps")).apps.map((a) => a.name)).toContain("late");
  });

  it("a failed audit insert does not undo or refuse the write it follows (the client must not retry a done write)", async () => {
    const { slug, token, api } = await setupProject("audfail");
    const faulty = faultyD1(env.DB, { auditWrite: true });
    const res = await callWith({ DB: faulty.db }, "POST", `/v1/projects/${slug}/passes`, { token, body: validPass(1, 10) });
    expect(faulty.fired).toHaveLength(1);
    expect(res.status).toBe(200);
    const replay = await api.ok("POST", "/passes", validPass(1, 10));
    expect(replay.workunits[0]!.results.map((r) => r.replayed)).toEqual([true, true]);
  });
});
