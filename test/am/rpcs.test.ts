/**
 * Account-manager RPCs through the API: baselines, deltas booked per user, project, host and in
 * total, every clip rule visible, a UTC day boundary, a client reset, exactly-once replays.
 * Host: 4 CPUs, 1 GPU. Per hour the limits are (test/credit/am-deltas.test.ts derives them):
 * CPU time 14,400 s, GPU time 3,600 s, CPU credit 4 × 20,000 / 24 = 3,333.33…, GPU credit
 * 2e7 / 24, jobs 5,000.
 */
import { describe, expect, it } from "vitest";
import { errorOf } from "../support/api-helpers";
import { EINSTEIN, HOUR, ROSETTA, T0, createAm, dayNumbers, rpcBody, totals } from "./support";

const CPU_CREDIT_PER_HOUR = (4 * 20_000) / 24;

describe("account-manager RPCs", () => {
  it("the first RPC of a (host, project) records the baseline; the next books the deltas everywhere", async () => {
    const am = await createAm();
    const first = await am.rpc(3, rpcBody(T0 + 10 * HOUR, [totals(EINSTEIN, { cpu_ec: 500, cpu_time: 10_000, njobs_success: 5 })]));
    expect(first.projects[0]).toMatchObject({ baseline: true, url_key: "einstein.example/", clips: [] });
    expect(first.projects[0]!.booked).toEqual({ cpu_ec: 0, cpu_time: 0, gpu_ec: 0, gpu_time: 0, njobs_success: 0, njobs_error: 0 });

    // One hour later: CPU credit +600, CPU time +7,200 s, GPU credit +1,000, GPU time +1,800 s,
    // 3 successes and 1 error; all within the limits. Rosetta is new: its baseline only.
    const einstein = { cpu_ec: 1100, cpu_time: 17_200, gpu_ec: 1000, gpu_time: 1800, njobs_success: 8, njobs_error: 1 };
    const second = await am.rpc(3, rpcBody(T0 + 11 * HOUR, [totals(EINSTEIN, einstein), totals(ROSETTA, { cpu_ec: 42 })]));
    expect(second).toMatchObject({ replayed: false, host_id: 3, user_id: 7, day: "2024-10-04" });
    expect(second.projects[0]).toMatchObject({ baseline: false, interval: HOUR, clips: [] });
    expect(second.projects[0]!.booked).toEqual({
      cpu_ec: 600,
      cpu_time: 7200,
      gpu_ec: 1000,
      gpu_time: 1800,
      njobs_success: 3,
      njobs_error: 1,
    });
    expect(second.projects[1]!.baseline).toBe(true);

    // Booked estimated credit: 600 + 1,000 = 1,600, on 2024-10-04.
    const expected = { date: "2024-10-04", ec: 1600, cpu_time: 7200, gpu_time: 1800, njobs_success: 3, njobs_error: 1, total_ec: 1600 };
    const q = { end: "2024-10-04", days: 1 };
    expect((await am.series("users/7", q))[0]).toMatchObject(expected);
    expect((await am.series("totals", q))[0]).toMatchObject(expected);
    expect((await am.series("hosts/3", q))[0]).toMatchObject(expected);
    // The same project under another spelling of its URL.
    expect((await am.series("projects", { ...q, url: "http://Einstein.example" }))[0]).toMatchObject(expected);
    expect((await am.series("users/7", { ...q, url: EINSTEIN }))[0]).toMatchObject(expected);
    expect((await am.series("hosts/3", { ...q, url: EINSTEIN }))[0]).toMatchObject(expected);
    expect(dayNumbers((await am.series("projects", { ...q, url: ROSETTA }))[0])).toEqual([0, 0, 0, 0]);
    // Another user saw nothing.
    expect((await am.series("users/8", q))[0]!.ec).toBe(0);
  });

  it("each clip rule books the limit and records what was claimed, booked and why", async () => {
    const am = await createAm();
    await am.rpc(4, rpcBody(T0, [totals(EINSTEIN)]));
    // One hour: CPU credit 5,000 > 3,333.33…; CPU time 20,000 > 14,400; GPU time 7,200 > 3,600;
    // GPU credit 1e6 > 833,333.33…; 6,000 successes and 5,001 errors > 5,000.
    const claimed = { cpu_ec: 5000, cpu_time: 20_000, gpu_ec: 1e6, gpu_time: 7200, njobs_success: 6000, njobs_error: 5001 };
    const res = await am.rpc(4, rpcBody(T0 + HOUR, [totals(EINSTEIN, claimed)]));
    const p = res.projects[0]!;
    expect(p.claimed).toEqual(claimed);
    expect(p.booked.cpu_ec).toBeCloseTo(CPU_CREDIT_PER_HOUR, 9);
    expect(p.booked.gpu_ec).toBeCloseTo(2e7 / 24, 6);
    expect([p.booked.cpu_time, p.booked.gpu_time, p.booked.njobs_success, p.booked.njobs_error]).toEqual([14_400, 3600, 5000, 5000]);
    expect(p.clips.map((c) => [c.field, c.rule])).toEqual([
      ["cpu_ec", "credit_over_peak"],
      ["cpu_time", "device_time_over_interval"],
      ["gpu_ec", "credit_over_peak"],
      ["gpu_time", "device_time_over_interval"],
      ["njobs_success", "jobs_over_limit"],
      ["njobs_error", "jobs_over_limit"],
    ]);
    const [day] = await am.series("hosts/4", { end: "2024-10-04", days: 1 });
    expect(day!.ec).toBeCloseTo(CPU_CREDIT_PER_HOUR + 2e7 / 24, 6);
    expect(day!.claimed_ec).toBe(1_005_000);
    expect([day!.cpu_time, day!.gpu_time, day!.njobs_success, day!.njobs_error]).toEqual([14_400, 3600, 5000, 5000]);
    // The RPC log keeps the clips (newest first).
    const log = await am.rpcs(4);
    expect(log).toHaveLength(2);
    expect(log[0]!.projects[0]!.clips).toEqual(p.clips);
  });

  it("a delta is booked on the UTC day of the RPC; the running total carries over midnight", async () => {
    const am = await createAm();
    await am.rpc(5, rpcBody(T0 + 20 * HOUR, [totals(EINSTEIN, { cpu_ec: 1000 })]));
    // 23:59:59 on 2024-10-04: +100 (4 h − 1 s allow 13,333.1…).
    await am.rpc(5, rpcBody(T0 + 86_399, [totals(EINSTEIN, { cpu_ec: 1100 })]));
    // 00:00:00 on 2024-10-05 (1 s later; 1 s allows 4 × 1e11 × 200 / 86,400e9 = 0.9259…): +0.5.
    await am.rpc(5, rpcBody(T0 + 86_400, [totals(EINSTEIN, { cpu_ec: 1100.5 })]));
    // 01:00 on 2024-10-05: +200 (3,600 s allow 3,333.33…).
    await am.rpc(5, rpcBody(T0 + 86_400 + HOUR, [totals(EINSTEIN, { cpu_ec: 1300.5 })]));
    const days = await am.series("users/7", { end: "2024-10-06", days: 4 });
    expect(days.map((d) => [d.date, d.ec, d.total_ec])).toEqual([
      ["2024-10-03", 0, 0],
      ["2024-10-04", 100, 100],
      ["2024-10-05", 200.5, 300.5],
      ["2024-10-06", 0, 300.5],
    ]);
  });

  it("a client reset books nothing for the totals that went down; the next RPC counts from the new totals", async () => {
    const am = await createAm();
    await am.rpc(6, rpcBody(T0, [totals(EINSTEIN, { cpu_ec: 1000, cpu_time: 50_000, njobs_success: 100 })]));
    const reset = await am.rpc(6, rpcBody(T0 + HOUR, [totals(EINSTEIN, { cpu_ec: 30, cpu_time: 600, njobs_success: 2 })]));
    expect(reset.projects[0]!.clips).toEqual([
      { field: "cpu_ec", claimed: -970, booked: 0, rule: "client_reset", limit: 0 },
      { field: "cpu_time", claimed: -49_400, booked: 0, rule: "client_reset", limit: 0 },
      { field: "njobs_success", claimed: -98, booked: 0, rule: "client_reset", limit: 0 },
    ]);
    // From (30, 600 s, 2) to (230, 4,200 s, 5): +200, +3,600 s, +3.
    await am.rpc(6, rpcBody(T0 + 2 * HOUR, [totals(EINSTEIN, { cpu_ec: 230, cpu_time: 4200, njobs_success: 5 })]));
    const [day] = await am.series("hosts/6", { end: "2024-10-04", days: 1 });
    expect(dayNumbers(day)).toEqual([200, 200, 3600, 3]);
    expect(day!.claimed_ec).toBe(200);
  });

  it("exactly once: a replayed RPC books nothing; other totals at the same time, or an older RPC, are 409", async () => {
    const am = await createAm();
    await am.rpc(8, rpcBody(T0, [totals(EINSTEIN, { cpu_ec: 10 })]));
    const body = rpcBody(T0 + HOUR, [totals(EINSTEIN, { cpu_ec: 110 })]);
    const first = await am.rpc(8, body);
    const again = await am.rpc(8, body);
    expect(again).toEqual({ ...first, replayed: true });
    const conflict = await am.rpcRaw(8, rpcBody(T0 + HOUR, [totals(EINSTEIN, { cpu_ec: 120 })]));
    expect(conflict.status).toBe(409);
    expect(errorOf(conflict).code).toBe("conflict");
    const older = await am.rpcRaw(8, rpcBody(T0 + HOUR / 2, [totals(EINSTEIN, { cpu_ec: 60 })]));
    expect(older.status).toBe(409);
    expect(errorOf(older).code).toBe("rpc_out_of_order");
    // Only the first post was booked (+100), and the baseline is still 110: +50 more.
    await am.rpc(8, rpcBody(T0 + 2 * HOUR, [totals(EINSTEIN, { cpu_ec: 160 })]));
    expect(dayNumbers((await am.series("totals", { end: "2024-10-04", days: 1 }))[0])).toEqual([150, 150, 0, 0]);
    expect(await am.rpcs(8)).toHaveLength(3);
  });
});
