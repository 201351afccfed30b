import { describe, expect, it } from "vitest";
import { EMPTY_AVERAGE, EMPTY_AVERAGE_VAR } from "../../src/credit/average";
import {
  type AppCreditSettings,
  type AppVersionStats,
  type HostAppVersionStats,
  type ResultMeasurements,
  applyVersionPfcSamples,
  getPfc,
  isPfcSane,
  pfcToCredit,
  pfcToCreditExpanded,
  wuEstimatedPfc,
} from "../../src/credit/pfc";
import { expectRel } from "./close";

const WU = { rscFpopsEst: 1e12, rscFpopsBound: 1e13 };
const APP: AppCreditSettings = { minAvgPfc: 1, hostScaleCheck: false };
const FRESH_VERSION: AppVersionStats = { pfc: EMPTY_AVERAGE, pfcScale: 0 };
const FRESH_HAV: HostAppVersionStats = {
  pfc: EMPTY_AVERAGE,
  et: EMPTY_AVERAGE_VAR,
  turnaround: EMPTY_AVERAGE_VAR,
  consecutiveValid: 0,
};
// 100 s at 1e10 FLOPS: raw PFC 1e12, exactly the workunit estimate (ratio 1)
const RESULT: ResultMeasurements = {
  anonymous: false,
  elapsedTime: 100,
  cpuTime: 90,
  flopsEstimate: 1e10,
  sentTime: 1000,
  receivedTime: 1500,
  runtimeOutlier: false,
};
const r = (over: Partial<ResultMeasurements>) => ({ ...RESULT, ...over });
const hav = (n: number, avg: number, consecutiveValid = 0): HostAppVersionStats => ({
  ...FRESH_HAV,
  pfc: { n, avg },
  consecutiveValid,
});

describe("credit of a PFC", () => {
  it("credit(1e13 FLOP) = 23.148148148148149 (docs/spec/credit.md#reference-values)", () => {
    expect(pfcToCreditExpanded(1e13)).toBe(23.148148148148149); // (1e13·200)/86400e9, one rounding
    expectRel(pfcToCredit(1e13), 23.148148148148149, 1e-15);
  });
});

describe("wu_estimated_pfc = rsc_fpops_est × min_avg_pfc", () => {
  it("multiplies by min_avg_pfc", () => {
    expect(wuEstimatedPfc(WU, { ...APP, minAvgPfc: 0.5 })).toBe(5e11);
  });
  it("uses factor 1 when min_avg_pfc is 0", () => {
    expect(wuEstimatedPfc(WU, { ...APP, minAvgPfc: 0 })).toBe(1e12);
  });
});

describe("is_pfc_sane: 1e-4 ≤ x ≤ 1e4", () => {
  it("accepts both ends and rejects just outside", () => {
    expect(isPfcSane(1e-4)).toBe(true);
    expect(isPfcSane(1e4)).toBe(true);
    expect(isPfcSane(0.99e-4)).toBe(false);
    expect(isPfcSane(1.01e4)).toBe(false);
    expect(isPfcSane(0)).toBe(false);
  });
});

describe("get_pfc: a first result of a new version on a new host", () => {
  const p = getPfc(RESULT, WU, APP, FRESH_VERSION, FRESH_HAV);

  it("claims the raw PFC elapsed × flops in APPROX mode", () => {
    expect(p.rawPfc).toBe(1e12);
    expect(p.pfc).toBe(1e12);
    expect(p.mode).toBe("approx");
    expect(p.versionScale).toBe(0);
    expect(p.hostScale).toBe(0);
  });

  it("gives samples pfc = raw/est, et = elapsed/est, turnaround = received − sent", () => {
    expect(p.havSamples).toEqual({ pfc: 1, et: 100 / 1e12, turnaround: 500 });
    expect(p.avPfcSample).toBe(1);
  });

  it("returns the host_app_version with those samples applied", () => {
    expect(p.hav.pfc).toEqual({ n: 1, avg: 1 });
    expect(p.hav.et).toEqual({ n: 1, avg: 100 / 1e12, var: 0, q: 0 });
    expect(p.hav.turnaround).toEqual({ n: 1, avg: 500, var: 0, q: 0 });
    expect(p.hav.consecutiveValid).toBe(0);
  });
});

describe("get_pfc: elapsed-time fallback (docs/spec/edge-cases.md#e11)", () => {
  it("uses cpu_time when elapsed_time < 1e-6", () => {
    for (const elapsedTime of [0, 5e-7]) {
      const p = getPfc(r({ elapsedTime, cpuTime: 50 }), WU, APP, FRESH_VERSION, FRESH_HAV);
      expect(p.rawPfc).toBe(5e11); // 50 s × 1e10
      expect(p.havSamples.et).toBe(50 / 1e12);
    }
  });

  it("keeps an elapsed_time of exactly 1e-6", () => {
    const p = getPfc(r({ elapsedTime: 1e-6, cpuTime: 50 }), WU, APP, FRESH_VERSION, FRESH_HAV);
    expect(p.rawPfc).toBe(1e-6 * 1e10);
  });

  it("with both times 0: claim 0, no pfc sample (x = 0 is insane), but an et sample of 0", () => {
    const p = getPfc(r({ elapsedTime: 0, cpuTime: 0 }), WU, APP, FRESH_VERSION, FRESH_HAV);
    expect(p.pfc).toBe(0);
    expect(p.havSamples).toEqual({ et: 0, turnaround: 500 });
    expect(p.avPfcSample).toBeUndefined();
  });
});

describe("get_pfc: missing or failed benchmark (docs/spec/edge-cases.md#e9, docs/spec/edge-cases.md#e10)", () => {
  it.each([0, -5, 1e9])("flops_estimate %s becomes 4.3e9 and marks a runtime outlier", (flopsEstimate) => {
    const p = getPfc(r({ flopsEstimate }), WU, APP, FRESH_VERSION, FRESH_HAV);
    expect(p.rawPfc).toBe(100 * 4.3e9);
    expect(p.pfc).toBe(100 * 4.3e9);
    expect(p.runtimeOutlier).toBe(true);
    // an outlier gives no host_app_version sample and no app-version pfc sample
    expect(p.havSamples).toEqual({});
    expect(p.avPfcSample).toBeUndefined();
    expect(p.hav).toEqual(FRESH_HAV);
  });

  it("does not catch a multiple of the sentinel (2e9)", () => {
    const p = getPfc(r({ flopsEstimate: 2e9 }), WU, APP, FRESH_VERSION, FRESH_HAV);
    expect(p.rawPfc).toBe(2e11);
    expect(p.runtimeOutlier).toBe(false);
  });

  it("a project-flagged outlier keeps its claim but gives no samples", () => {
    const p = getPfc(r({ runtimeOutlier: true }), WU, APP, FRESH_VERSION, FRESH_HAV);
    expect(p.pfc).toBe(1e12);
    expect(p.runtimeOutlier).toBe(true);
    expect(p.havSamples).toEqual({});
    expect(p.avPfcSample).toBeUndefined();
  });
});

describe("get_pfc: insane ratio raw/est outside 1e-4..1e4", () => {
  it("is not a pfc sample, but et and turnaround are", () => {
    // 100 s × 9.9e5 = 9.9e7; /1e12 = 9.9e-5 < 1e-4
    const low = getPfc(r({ flopsEstimate: 9.9e5 }), WU, APP, FRESH_VERSION, FRESH_HAV);
    expect(low.havSamples).toEqual({ et: 100 / 1e12, turnaround: 500 });
    expect(low.avPfcSample).toBeUndefined();
    // 100 s × 1.01e14 = 1.01e16; /1e12 = 1.01e4 > 1e4
    const high = getPfc(r({ flopsEstimate: 1.01e14 }), WU, APP, FRESH_VERSION, FRESH_HAV);
    expect(high.havSamples.pfc).toBeUndefined();
    expect(high.avPfcSample).toBeUndefined();
    expect(high.pfc).toBe(1.01e16); // the claim itself is untouched (the bound cap comes later)
  });

  it("ratios of exactly 1e-4 and 1e4 are samples", () => {
    const low = getPfc(r({ flopsEstimate: 1e6 }), WU, APP, FRESH_VERSION, FRESH_HAV);
    expect(low.havSamples.pfc).toBe(1e-4);
    expect(low.avPfcSample).toBe(1e-4);
    const high = getPfc(r({ flopsEstimate: 1e14 }), WU, APP, FRESH_VERSION, FRESH_HAV);
    expect(high.havSamples.pfc).toBe(1e4);
  });
});

describe("get_pfc: anonymous platform (docs/spec/edge-cases.md#e4)", () => {
  const anon = r({ anonymous: true });
  const APP2 = { ...APP, minAvgPfc: 2 };

  it("scales by min_avg_pfc / hav avg once the host has 10 samples, with no cap", () => {
    // 2 / 0.125 = 16, above the normal-platform cap of 10
    const p = getPfc(anon, WU, APP2, null, hav(10, 0.125));
    expect(p.hostScale).toBe(16);
    expect(p.pfc).toBe(1.6e13);
    expect(p.mode).toBe("approx");
  });

  it("claims the workunit estimate (est × min_avg_pfc) with 9 host samples", () => {
    const p = getPfc(anon, WU, APP2, null, hav(9, 0.125));
    expect(p.pfc).toBe(2e12);
    expect(p.hostScale).toBe(0);
    expect(p.mode).toBe("approx");
  });

  it("with host_scale_check needs consecutive_valid ≥ 10", () => {
    const check = { ...APP2, hostScaleCheck: true };
    expect(getPfc(anon, WU, check, null, hav(10, 0.125, 9)).pfc).toBe(2e12);
    expect(getPfc(anon, WU, check, null, hav(10, 0.125, 10)).pfc).toBe(1.6e13);
  });

  it("claims 0 when scaled with min_avg_pfc = 0", () => {
    const p = getPfc(anon, WU, { ...APP, minAvgPfc: 0 }, null, hav(10, 0.125));
    expect(p.pfc).toBe(0);
  });

  it("updates the host_app_version but gives no app-version sample", () => {
    const p = getPfc(anon, WU, APP2, null, hav(9, 0.125));
    expect(p.havSamples.pfc).toBe(1);
    expect(p.hav.pfc.n).toBe(10);
    expect(p.avPfcSample).toBeUndefined();
  });
});

describe("get_pfc: normal platform scaling (docs/spec/edge-cases.md#e3, docs/spec/edge-cases.md#e5)", () => {
  // version: 100 samples averaging 2, pfc_scale 0.5; host: 10 samples averaging 4
  const version: AppVersionStats = { pfc: { n: 100, avg: 2 }, pfcScale: 0.5 };

  it("NORMAL with both scales: raw × pfc_scale × (av avg / hav avg)", () => {
    // host scale 2/4 = 0.5, read before this result's own sample (ratio 1) is added
    const p = getPfc(RESULT, WU, APP, version, hav(10, 4));
    expect(p.hostScale).toBe(0.5);
    expect(p.versionScale).toBe(0.5);
    expect(p.pfc).toBe(1e12 * 0.5 * 0.5);
    expect(p.mode).toBe("normal");
    // the sample comes after: 4 + (1 − 4)/11
    expect(p.hav.pfc.n).toBe(11);
    expectRel(p.hav.pfc.avg, 4 - 3 / 11);
  });

  it("caps the host scale at 10", () => {
    // 64 / 2 = 32 → 10
    const p = getPfc(RESULT, WU, APP, { pfc: { n: 100, avg: 64 }, pfcScale: 0.5 }, hav(10, 2));
    expect(p.hostScale).toBe(10);
    expect(p.pfc).toBe(1e12 * 0.5 * 10);
  });

  it("has no lower bound on the host scale", () => {
    // 2 / 4000 = 0.0005
    const p = getPfc(RESULT, WU, APP, version, hav(10, 4000));
    expectRel(p.hostScale, 0.0005);
  });

  it("needs ≥ 100 version samples: 99 gives no host scale and APPROX", () => {
    const p = getPfc(RESULT, WU, APP, { ...version, pfc: { n: 99, avg: 2 } }, hav(10, 4));
    expect(p.hostScale).toBe(0);
    expect(p.pfc).toBe(1e12 * 0.5);
    expect(p.mode).toBe("approx");
  });

  it("needs ≥ 10 host samples: 9 gives no host scale and APPROX", () => {
    const p = getPfc(RESULT, WU, APP, version, hav(9, 4));
    expect(p.hostScale).toBe(0);
    expect(p.mode).toBe("approx");
  });

  it("applies a host scale without a version scale but stays APPROX", () => {
    const p = getPfc(RESULT, WU, APP, { ...version, pfcScale: 0 }, hav(10, 4));
    expect(p.pfc).toBe(1e12 * 0.5);
    expect(p.mode).toBe("approx");
  });

  it("with host_scale_check needs consecutive_valid ≥ 10", () => {
    const check = { ...APP, hostScaleCheck: true };
    expect(getPfc(RESULT, WU, check, version, hav(10, 4, 9)).mode).toBe("approx");
    expect(getPfc(RESULT, WU, check, version, hav(10, 4, 10)).mode).toBe("normal");
  });

  it("takes the app-version sample from the raw PFC, not the scaled one", () => {
    const p = getPfc(RESULT, WU, APP, version, hav(10, 4));
    expect(p.avPfcSample).toBe(1);
  });
});

describe("app-version pfc samples (AV parameters 100, 0.001, 10)", () => {
  it("are a running mean in order: [1, 2, 3] → n=3, avg=2", () => {
    expect(applyVersionPfcSamples(EMPTY_AVERAGE, [1, 2, 3])).toEqual({ n: 3, avg: 2 });
  });
});
