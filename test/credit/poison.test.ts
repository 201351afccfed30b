/**
 * The engine stays finite where BOINC's arithmetic would not: each case fails without its fix
 * (NaN or ∞ before). Expected values are worked out by hand in the comments.
 */
import { describe, expect, it } from "vitest";
import { EMPTY_AVERAGE, EMPTY_AVERAGE_VAR } from "../../src/credit/average";
import { peggedAverage } from "../../src/credit/averaging";
import { AVG_CPU_FPOPS } from "../../src/credit/constants";
import { type HostAppVersionStats, type ResultMeasurements, getPfc } from "../../src/credit/pfc";

const WU = { rscFpopsEst: 1e12, rscFpopsBound: 1e13 };
const RESULT: ResultMeasurements = {
  anonymous: true,
  elapsedTime: 1e12,
  cpuTime: 0,
  flopsEstimate: 1e308,
  sentTime: 1000,
  receivedTime: 1500,
  runtimeOutlier: false,
};
// An anonymous-platform host with enough samples for host scaling (n ≥ 10, avg > 0).
const SCALED_HAV: HostAppVersionStats = {
  pfc: { n: 10, avg: 1 },
  et: EMPTY_AVERAGE_VAR,
  turnaround: EMPTY_AVERAGE_VAR,
  consecutiveValid: 0,
};

describe("poison input stays finite in the engine", () => {
  it("an anonymous claim whose elapsed × FLOPS overflows, with min_avg_pfc 0: PFC 0, not ∞ × 0 = NaN", () => {
    // raw PFC 1e12 × 1e308 overflows; it saturates at the largest double. Host scale =
    // min_avg_pfc / host average = 0 / 1 = 0, so the PFC is MAX_VALUE × 0 = 0.
    const out = getPfc(RESULT, WU, { minAvgPfc: 0, hostScaleCheck: false }, null, SCALED_HAV);
    expect(out.rawPfc).toBe(Number.MAX_VALUE);
    expect(out.hostScale).toBe(0);
    expect(out.pfc).toBe(0);
    // Ratio MAX_VALUE / 1e12 is far above PFC_SANE_MAX: no pfc sample; the et sample is finite.
    expect(out.havSamples.pfc).toBeUndefined();
    expect(out.havSamples.et).toBe(1e12 / 1e12);
  });

  it("a negative flops_estimate is BOINC's 'unknown': 4.3e9 FLOPS, and the result is no statistics sample", () => {
    const out = getPfc(
      { ...RESULT, anonymous: false, elapsedTime: 100, flopsEstimate: -1 },
      WU,
      { minAvgPfc: 1, hostScaleCheck: false },
      { pfc: EMPTY_AVERAGE, pfcScale: 0 },
      SCALED_HAV,
    );
    expect(out.rawPfc).toBe(100 * AVG_CPU_FPOPS);
    expect(out.runtimeOutlier).toBe(true);
    expect(out.havSamples).toEqual({});
  });

  it("pegged_average at a denormal anchor: weights 1/0 no longer make ∞/∞", () => {
    const anchor = Number.MIN_VALUE;
    // 0.1 × anchor underflows to 0. Values 0 and 0: both at distance anchor, equal weights → 0.
    expect(peggedAverage([0, 0], anchor)).toBe(0);
    // A value at the anchor has distance 0 (weight 1/0): it alone counts, as in the limit.
    expect(peggedAverage([anchor, 0, 1e13], anchor)).toBe(anchor);
  });

  it("pegged_average with a weight that overflows to ∞: the ratio of scaled weights", () => {
    // Anchor 1e-310 (denormal): the value at it has distance 0.1 × 1e-310 = 1e-311, weight
    // 1/1e-311 = ∞ (over the largest double), so BOINC's sums are ∞/∞. Divided by the largest
    // weight, the weights are 1 and 1e-311 / (1e-311 + 1e13 − 1e-310) ≈ 1e-324 → 0: the
    // average is the value at the anchor.
    expect(peggedAverage([1e-310, 1e13], 1e-310)).toBe(1e-310);
  });
});
