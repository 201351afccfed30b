/**
 * BOINC's trickle_credit handler, rule by rule, with numbers worked out by hand:
 * credit = runtime × flops × 200 / 86400e9, so one hour at 3 GFLOPS is
 * 3600 × 3e9 × 200 / 86400e9 = 2.16e15 / 8.64e13 = 25 credits.
 */
import { describe, expect, it } from "vitest";
import { fpopsPercentile, percentileIndex, trickleCredit, trickleGrant } from "../../src/credit/trickle";

const PERCENTILES = { p50: 2e9, p95: 8e9 };

describe("trickle credit (sched/trickle_credit.cpp)", () => {
  it("pays runtime × the host's p_fpops × 200/86400e9", () => {
    const paid = trickleCredit({ runtime: 3600, hostPFpops: 3e9, maxRuntime: 7200, percentiles: PERCENTILES });
    expect(paid).toEqual({ credit: 25, runtime: 3600, runtimeCut: false, flops: 3e9, flopsSource: "host" });
  });

  it("cuts a runtime above max_runtime to it: 10,000 s with max 7,200 s pays 7,200 × 3e9 × 200/86400e9 = 50", () => {
    const paid = trickleCredit({ runtime: 10_000, hostPFpops: 3e9, maxRuntime: 7200, percentiles: PERCENTILES });
    expect(paid).toEqual({ credit: 50, runtime: 7200, runtimeCut: true, flops: 3e9, flopsSource: "host" });
    // Exactly max_runtime is not cut.
    expect(trickleCredit({ runtime: 7200, hostPFpops: 3e9, maxRuntime: 7200, percentiles: PERCENTILES })).toMatchObject({
      runtimeCut: false,
    });
  });

  it("replaces a negative or unknown p_fpops by the 50th percentile: 3,600 s × 2e9 → 50/3", () => {
    for (const hostPFpops of [-1, null]) {
      const paid = trickleCredit({ runtime: 3600, hostPFpops, maxRuntime: 7200, percentiles: PERCENTILES });
      expect(paid).toMatchObject({ flops: 2e9, flopsSource: "p50" });
      // 3600 × 2e9 × 200 / 86400e9 = 1.44e15 / 8.64e13 = 16.666…
      expect((paid as { credit: number }).credit).toBeCloseTo(50 / 3, 12);
    }
  });

  it("caps p_fpops at the 95th percentile: 3,600 s at 20e9 pays as 8e9 → 3600 × 8e9 × 200/86400e9 = 200/3", () => {
    const paid = trickleCredit({ runtime: 3600, hostPFpops: 20e9, maxRuntime: 7200, percentiles: PERCENTILES });
    expect(paid).toMatchObject({ flops: 8e9, flopsSource: "p95", runtimeCut: false });
    expect((paid as { credit: number }).credit).toBeCloseTo(200 / 3, 12);
  });

  it("pays a zero benchmark nothing (BOINC substitutes only a negative one)", () => {
    expect(trickleCredit({ runtime: 3600, hostPFpops: 0, maxRuntime: 7200, percentiles: PERCENTILES })).toMatchObject({
      credit: 0,
      flopsSource: "host",
    });
  });

  it("refuses a runtime <= 0, and a host without a benchmark while no percentiles exist", () => {
    for (const runtime of [0, -5]) {
      expect(trickleCredit({ runtime, hostPFpops: 3e9, maxRuntime: 7200, percentiles: PERCENTILES })).toBe("nonpositive_runtime");
    }
    expect(trickleCredit({ runtime: 3600, hostPFpops: null, maxRuntime: 7200, percentiles: null })).toBe("no_percentiles");
    // Without percentiles a known benchmark is used as it is (no cap to apply).
    expect(trickleCredit({ runtime: 3600, hostPFpops: 30e9, maxRuntime: 7200, percentiles: null })).toMatchObject({
      credit: 250,
      flopsSource: "host",
    });
  });

  it("picks percentiles as fpops_percentile does: index floor(n × p / 100) of the ascending values", () => {
    // n = 21: p50 → floor(10.5) = 10, p95 → floor(19.95) = 19 (0-based).
    expect(percentileIndex(21, 50)).toBe(10);
    expect(percentileIndex(21, 95)).toBe(19);
    // n = 1: both are the one value.
    expect(percentileIndex(1, 95)).toBe(0);
    const sorted = Array.from({ length: 21 }, (_, i) => (i + 1) * 1e9);
    expect(fpopsPercentile(sorted, 50)).toBe(11e9);
    expect(fpopsPercentile(sorted, 95)).toBe(20e9);
    expect(fpopsPercentile([], 50)).toBeNull();
  });

  it("grants to the host, owner and team as grant_credit(host, now − 86400, credit); per-app credit only with a result, never a job", () => {
    const who = { hostId: 7, userId: 3, teamId: 2, appId: 1 };
    expect(trickleGrant({ ...who, resultId: 99 }, 100_000, 25)).toEqual({
      resultId: 99,
      ...who,
      credit: 25,
      startTime: 100_000 - 86_400,
      perApp: "credit",
    });
    expect(trickleGrant({ ...who, resultId: null }, 100_000, 25)).toMatchObject({ perApp: "none" });
  });
});
