import { describe, expect, it } from "vitest";
import { NEUTRALITY } from "../../src/credit/parameters";
import {
  EMPTY_NEUTRAL_WINDOW,
  type NeutralSample,
  addNeutralSample,
  neutralPeriodOf,
  neutralWindowAt,
} from "../../src/credit/neutrality-window";

const T = NEUTRALITY.periodSeconds; // 30 days = 2,592,000 s
const at = (period: number, credit: number, deviceSeconds: number, results: number): NeutralSample => ({
  period,
  credit,
  deviceSeconds,
  results,
});

describe("the neutrality window: two 30-day buckets on the host_app_versions row", () => {
  it("a period is 30 days of Unix time", () => {
    expect(T).toBe(2_592_000);
    expect(neutralPeriodOf(100 * T)).toBe(100);
    expect(neutralPeriodOf(101 * T - 1)).toBe(100);
  });

  it("adds to the current period, rolls over to the next, files late samples under the previous, drops older ones", () => {
    let w = addNeutralSample(EMPTY_NEUTRAL_WINDOW, at(100, 10, 3600, 1));
    expect(w).toEqual({
      period: 100,
      current: { credit: 10, deviceSeconds: 3600, results: 1 },
      previous: { credit: 0, deviceSeconds: 0, results: 0 },
    });
    w = addNeutralSample(w, at(100, 5, 1800, 1));
    expect(w.current).toEqual({ credit: 15, deviceSeconds: 5400, results: 2 });
    w = addNeutralSample(w, at(101, 2, 100, 1));
    expect(w).toEqual({
      period: 101,
      current: { credit: 2, deviceSeconds: 100, results: 1 },
      previous: { credit: 15, deviceSeconds: 5400, results: 2 },
    });
    w = addNeutralSample(w, at(100, 1, 1, 1));
    expect(w.previous).toEqual({ credit: 16, deviceSeconds: 5401, results: 3 });
    expect(addNeutralSample(w, at(99, 7, 7, 7))).toEqual(w);
    // Two periods on, the old current is outside every window.
    expect(addNeutralSample(w, at(103, 1, 1, 1))).toEqual({
      period: 103,
      current: { credit: 1, deviceSeconds: 1, results: 1 },
      previous: { credit: 0, deviceSeconds: 0, results: 0 },
    });
  });

  it("reads the current period whole and the previous one by the share still inside the window", () => {
    const w = {
      period: 101,
      current: { credit: 2, deviceSeconds: 100, results: 1 },
      previous: { credit: 16, deviceSeconds: 5400, results: 4 },
    };
    // A quarter into period 101: 2 + 16 × 0.75 = 14; 100 + 5400 × 0.75 = 4150; 1 + 4 × 0.75 = 4.
    expect(neutralWindowAt(w, 101.25 * T)).toEqual({ credit: 14, deviceSeconds: 4150, results: 4 });
    // Half into period 102: the stored current is the previous period now, half of it inside.
    expect(neutralWindowAt(w, 102.5 * T)).toEqual({ credit: 1, deviceSeconds: 50, results: 0.5 });
    expect(neutralWindowAt(w, 103 * T)).toEqual({ credit: 0, deviceSeconds: 0, results: 0 });
  });
});
