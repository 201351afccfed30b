/**
 * Reconciliation with credit granted by real passes (credit_history written by the passes).
 * On 2024-10-04 the account manager books, for project P (linked hosts):
 *   host 11 (user 7, honest):    estimated 300, granted by P 3 × 100 = 300 → factor 1
 *   host 12 (user 8, inflating): estimated 2,000, granted 1 × 100 = 100  → factor 100 / 2,000 = 0.05
 *   host 13 (user 9): estimated 50, not linked by any project → not reconciled
 * The cron of 2024-10-05 00:30 UTC reconciles 2024-10-04 (window: the 30 days ending then).
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { result, workunit } from "../support/api-helpers";
import { HOUR, T0, createAm, projectAt, rpcBody, totals } from "./support";

async function runDailyCron(at: number) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "30 0 * * *", scheduledTime: at * 1000 }), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** One workunit of app "a" worth `credit`, with one valid result of project host `hostId`. */
const fixedWorkunit = (id: number, hostId: number, credit: number) =>
  workunit(id, [result(id * 10, { host_id: hostId, user_id: hostId })], { canonical_credit: credit, target_nresults: 1 });

describe("reconciliation of estimated with granted credit", () => {
  it("an honest host keeps factor 1, an inflating one gets granted / estimated; the confirmed series follows", async () => {
    const url = `https://p-${Math.random().toString(36).slice(2, 8)}.example/`;
    const am = await createAm();
    const project = await projectAt(url);
    // The project's hosts 501 and 502 are the account manager's hosts 11 and 12.
    await project.ok("PUT", "/hosts/501", { account_manager: am.slug, am_host_id: 11 });
    await project.ok("PUT", "/hosts/502", { account_manager: am.slug, am_host_id: 12 });

    for (const [host, user, ec] of [
      [11, 7, 300],
      [12, 8, 2000],
      [13, 9, 50],
    ] as const) {
      await am.rpc(host, rpcBody(T0 + HOUR, [totals(url)], { user_id: user }));
      // 2,000 in one hour is within 4 CPUs' 3,333.33…: nothing clipped; the factor must catch it.
      await am.rpc(host, rpcBody(T0 + 2 * HOUR, [totals(url, { cpu_ec: ec })], { user_id: user }));
    }
    const granted = await project.ok("POST", "/passes", {
      now: T0 + 3 * HOUR,
      workunits: [fixedWorkunit(1, 501, 100), fixedWorkunit(2, 501, 100), fixedWorkunit(3, 501, 100), fixedWorkunit(4, 502, 100)],
    });
    expect(granted.workunits.map((w) => w.results[0]!.granted_credit)).toEqual([100, 100, 100, 100]);

    // Before the cron: nothing is confirmed yet.
    const q = { end: "2024-10-04", days: 1 };
    expect((await am.series("totals", q))[0]).toMatchObject({ ec: 2350, confirmed_ec: null });

    await runDailyCron(T0 + 86_400 + 1800);

    expect((await am.series("hosts/11", { ...q, url }))[0]).toMatchObject({
      ec: 300,
      factor: 1,
      window_granted: 300,
      window_estimated: 300,
      confirmed_ec: 300,
    });
    expect((await am.series("hosts/12", { ...q, url }))[0]).toMatchObject({
      ec: 2000,
      factor: 0.05,
      window_granted: 100,
      window_estimated: 2000,
      confirmed_ec: 100,
    });
    expect((await am.series("hosts/13", { ...q, url }))[0]).toMatchObject({ ec: 50, factor: null, confirmed_ec: null });
    expect((await am.series("users/7", { ...q, url }))[0]).toMatchObject({ factor: 1, confirmed_ec: 300 });
    expect((await am.series("users/8", { ...q, url }))[0]).toMatchObject({ factor: 0.05, confirmed_ec: 100 });
    expect((await am.series("users/8", q))[0]).toMatchObject({ ec: 2000, confirmed_ec: 100 });
    expect((await am.series("hosts/12", q))[0]).toMatchObject({ ec: 2000, confirmed_ec: 100 });
    // The project and the total: 300 + 100 confirmed of 2,350 estimated (host 13's 50 is not).
    expect((await am.series("projects", { ...q, url }))[0]).toMatchObject({ ec: 2350, confirmed_ec: 400 });
    expect((await am.series("totals", q))[0]).toMatchObject({ ec: 2350, confirmed_ec: 400 });

    // Running the cron again changes nothing.
    await runDailyCron(T0 + 86_400 + 1800);
    expect((await am.series("totals", q))[0]).toMatchObject({ ec: 2350, confirmed_ec: 400 });
  });

  it("the window is 30 days: a grant 30 days before the reconciled day no longer counts", async () => {
    const url = `https://w-${Math.random().toString(36).slice(2, 8)}.example/`;
    const am = await createAm();
    const project = await projectAt(url);
    await project.ok("PUT", "/hosts/601", { account_manager: am.slug, am_host_id: 21 });
    const D = 30 * 86_400;
    // Day 2024-10-04: estimated 100, granted 100. Day 2024-11-03 (30 days later): estimated 100,
    // granted nothing yet. Its window (2024-10-05 … 2024-11-03) holds estimated 100, granted 0.
    await am.rpc(21, rpcBody(T0 + HOUR, [totals(url)]));
    await am.rpc(21, rpcBody(T0 + 2 * HOUR, [totals(url, { cpu_ec: 100 })]));
    await project.ok("POST", "/passes", { now: T0 + 3 * HOUR, workunits: [fixedWorkunit(1, 601, 100)] });
    await am.rpc(21, rpcBody(T0 + D + HOUR, [totals(url, { cpu_ec: 200 })]));
    await runDailyCron(T0 + 86_400 + 1800);
    await runDailyCron(T0 + D + 86_400 + 1800);
    const days = await am.series("hosts/21", { end: "2024-11-03", days: 31, url });
    expect([days[0]!.date, days[0]!.factor, days[0]!.confirmed_ec]).toEqual(["2024-10-04", 1, 100]);
    expect([days[30]!.date, days[30]!.ec, days[30]!.factor, days[30]!.window_granted, days[30]!.confirmed_ec]).toEqual([
      "2024-11-03",
      100,
      0,
      0,
      0,
    ]);
  });

  it("a day the cron missed is reconciled by the next run (it redoes the two days before yesterday)", async () => {
    const url = `https://m-${Math.random().toString(36).slice(2, 8)}.example/`;
    const am = await createAm();
    const project = await projectAt(url);
    await project.ok("PUT", "/hosts/701", { account_manager: am.slug, am_host_id: 31 });
    // 2024-10-04: estimated 100, granted 40 → factor 0.4.
    await am.rpc(31, rpcBody(T0 + HOUR, [totals(url)]));
    await am.rpc(31, rpcBody(T0 + 2 * HOUR, [totals(url, { cpu_ec: 100 })]));
    await project.ok("POST", "/passes", { now: T0 + 3 * HOUR, workunits: [fixedWorkunit(1, 701, 40)] });
    // The run of 2024-10-05 was missed; the run of 2024-10-06 00:30 reconciles 10-05, 10-04 and 10-03.
    await runDailyCron(T0 + 2 * 86_400 + 1800);
    expect((await am.series("hosts/31", { end: "2024-10-04", days: 1, url }))[0]).toMatchObject({ factor: 0.4, confirmed_ec: 40 });
  });
});
