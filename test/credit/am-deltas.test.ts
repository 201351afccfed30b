/**
 * The clip rules of an account-manager RPC, on a host with 4 CPUs and 1 GPU and an interval
 * of one hour (3600 s). Limits derived by hand:
 * - CPU time: 4 instances × 3600 s = 14,400 s; GPU time: 1 × 3600 = 3,600 s.
 * - CPU credit: a 100 GFLOPS core earns 200 × 100 = 20,000 credits a day, 20,000 / 24 per hour,
 *   so 4 cores × 20,000 / 24 = 3,333.33… credits.
 * - GPU credit: a 100 TFLOPS GPU earns 200 × 100,000 = 2e7 a day, 2e7 / 24 = 833,333.33… an hour.
 * - Jobs: 5,000 per RPC.
 */
import { describe, expect, it } from "vitest";
import { type Totals, bookDeltas, bookedCredit, deltaLimits } from "../../src/credit/am-deltas";

const HOST = { ncpus: 4, nGpus: 1 };
const T0 = 1_000_000;
const HOUR = 3600;
const PREVIOUS: Totals = { cpu_ec: 100, cpu_time: 1000, gpu_ec: 50, gpu_time: 500, njobs_success: 10, njobs_error: 1 };
const previous = { totals: PREVIOUS, time: T0 };

/** PREVIOUS plus the given deltas. */
const plus = (deltas: Partial<Totals>): Totals =>
  Object.fromEntries(Object.entries(PREVIOUS).map(([k, v]) => [k, v + (deltas[k as keyof Totals] ?? 0)])) as Totals;

describe("account-manager deltas", () => {
  it("the limits of one hour on 4 CPUs and 1 GPU", () => {
    const l = deltaLimits(HOST, HOUR);
    expect(l.cpu_time).toBe(14_400);
    expect(l.gpu_time).toBe(3_600);
    expect(l.cpu_ec).toBeCloseTo((4 * 20_000) / 24, 9);
    expect(l.gpu_ec).toBeCloseTo(2e7 / 24, 6);
    expect(l.njobs_success).toBe(5000);
    expect(l.njobs_error).toBe(5000);
  });

  it("the first RPC of a (host, project) only records the baseline", () => {
    const b = bookDeltas(null, PREVIOUS, T0, HOST);
    expect(b.baseline).toBe(true);
    expect(Object.values(b.booked)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(b.clips).toEqual([]);
  });

  it("deltas within every limit are booked as claimed", () => {
    const deltas = { cpu_ec: 3000, cpu_time: 14_000, gpu_ec: 800_000, gpu_time: 3_500, njobs_success: 5000, njobs_error: 7 };
    const b = bookDeltas(previous, plus(deltas), T0 + HOUR, HOST);
    expect(b).toMatchObject({ baseline: false, interval: HOUR, clips: [] });
    expect(b.booked).toEqual(deltas);
    expect(bookedCredit(b)).toEqual({ ec: 803_000, claimedEc: 803_000 });
  });

  it("device time over instances × interval is clipped to it (CPU and GPU)", () => {
    const b = bookDeltas(previous, plus({ cpu_time: 20_000, gpu_time: 7_200 }), T0 + HOUR, HOST);
    expect(b.booked.cpu_time).toBe(14_400);
    expect(b.booked.gpu_time).toBe(3_600);
    expect(b.clips).toEqual([
      { field: "cpu_time", claimed: 20_000, booked: 14_400, rule: "device_time_over_interval", limit: 14_400 },
      { field: "gpu_time", claimed: 7_200, booked: 3_600, rule: "device_time_over_interval", limit: 3_600 },
    ]);
  });

  it("credit over the peak FLOPS of the interval is clipped to it (CPU and GPU)", () => {
    const b = bookDeltas(previous, plus({ cpu_ec: 5000, gpu_ec: 1e6 }), T0 + HOUR, HOST);
    expect(b.booked.cpu_ec).toBeCloseTo(80_000 / 24, 9);
    expect(b.booked.gpu_ec).toBeCloseTo(2e7 / 24, 6);
    expect(b.clips.map((c) => [c.field, c.rule, c.claimed])).toEqual([
      ["cpu_ec", "credit_over_peak", 5000],
      ["gpu_ec", "credit_over_peak", 1e6],
    ]);
    // Claimed 5,000 + 1,000,000; booked 3,333.33… + 833,333.33… = 836,666.66…
    const { ec, claimedEc } = bookedCredit(b);
    expect(claimedEc).toBe(1_005_000);
    expect(ec).toBeCloseTo(80_000 / 24 + 2e7 / 24, 6);
  });

  it("more than 5,000 jobs in one RPC count 5,000", () => {
    const b = bookDeltas(previous, plus({ njobs_success: 5001, njobs_error: 9000 }), T0 + HOUR, HOST);
    expect(b.booked.njobs_success).toBe(5000);
    expect(b.booked.njobs_error).toBe(5000);
    expect(b.clips.map((c) => c.rule)).toEqual(["jobs_over_limit", "jobs_over_limit"]);
  });

  it("a host claiming 1,000 CPUs is believed for 256: CPU time 256 × 3600 s, credit 256 × 20,000 / 24", () => {
    const big = { ncpus: 1000, nGpus: 0 };
    const b = bookDeltas(previous, plus({ cpu_time: 1000 * HOUR, cpu_ec: 1e6 }), T0 + HOUR, big);
    expect(b.booked.cpu_time).toBe(256 * HOUR);
    expect(b.booked.cpu_ec).toBeCloseTo((256 * 20_000) / 24, 6);
    // No GPU: any GPU time or credit is over its limit of 0.
    const gpu = bookDeltas(previous, plus({ gpu_time: 1, gpu_ec: 1 }), T0 + HOUR, big);
    expect([gpu.booked.gpu_time, gpu.booked.gpu_ec]).toEqual([0, 0]);
  });

  it("a client reset (totals went down) books 0 for each field that went down and says so", () => {
    const reset: Totals = { cpu_ec: 20, cpu_time: 1000, gpu_ec: 0, gpu_time: 0, njobs_success: 2, njobs_error: 1 };
    const b = bookDeltas(previous, reset, T0 + HOUR, HOST);
    expect(b.booked).toEqual({ cpu_ec: 0, cpu_time: 0, gpu_ec: 0, gpu_time: 0, njobs_success: 0, njobs_error: 0 });
    expect(b.clips).toEqual([
      { field: "cpu_ec", claimed: -80, booked: 0, rule: "client_reset", limit: 0 },
      { field: "gpu_ec", claimed: -50, booked: 0, rule: "client_reset", limit: 0 },
      { field: "gpu_time", claimed: -500, booked: 0, rule: "client_reset", limit: 0 },
      { field: "njobs_success", claimed: -8, booked: 0, rule: "client_reset", limit: 0 },
    ]);
    expect(bookedCredit(b)).toEqual({ ec: 0, claimedEc: 0 });
  });
});
