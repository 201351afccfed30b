import { describe, expect, it } from "vitest";
import { TAYLOR_RATE, decayWeight, decayedRecentAverage, updateRecentAverage } from "../../src/credit/recent-average";
import { expectRel } from "./close";

const DAY = 86400;
const HOUR = 3600;
const T0 = 1_700_000_000; // an arbitrary "now"; only differences matter in Case A

describe("update_average Case B: never updated (expavg_time = 0), work ≠ 0 — docs/spec/credit.md#reference-values", () => {
  it("100 credit started 1 day before now gives 100/day", () => {
    // 100 / (86400/86400)
    expect(updateRecentAverage({ expavgCredit: 0, expavgTime: 0 }, T0, T0 - DAY, 100)).toEqual({
      expavgCredit: 100,
      expavgTime: T0,
    });
  });

  it("100 credit started 1 hour before now gives 2400/day", () => {
    // 100 / (3600/86400) = 100 · 24
    const ra = updateRecentAverage({ expavgCredit: 0, expavgTime: 0 }, T0, T0 - HOUR, 100);
    expectRel(ra.expavgCredit, 2400);
    expect(ra.expavgTime).toBe(T0);
  });

  it("discards the old average", () => {
    const ra = updateRecentAverage({ expavgCredit: 999, expavgTime: 0 }, T0, T0 - DAY, 100);
    expect(ra.expavgCredit).toBe(100);
  });

  it("our deviation: work started at now gives work·ln2/7 instead of BOINC's infinity", () => {
    // ln2 · 86400 / 604800 = ln2/7 per credit
    const ra = updateRecentAverage({ expavgCredit: 0, expavgTime: 0 }, T0, T0, 70);
    expectRel(ra.expavgCredit, 10 * Math.LN2);
    expect(Number.isFinite(ra.expavgCredit)).toBe(true);
    expect(ra.expavgTime).toBe(T0);
  });
});

describe("update_average Case C: never updated, no work", () => {
  it("keeps the average and sets the time to now", () => {
    expect(updateRecentAverage({ expavgCredit: 5, expavgTime: 0 }, T0, T0 - DAY, 0)).toEqual({
      expavgCredit: 5,
      expavgTime: T0,
    });
  });
});

describe("update_average Case A: decay, then the new work — docs/spec/credit.md#reference-values", () => {
  const at = (gap: number, avg: number, work: number) => updateRecentAverage({ expavgCredit: avg, expavgTime: T0 }, T0 + gap, T0, work);

  it("decays 1000 over 7 days (one half-life) to 500", () => {
    expectRel(at(7 * DAY, 1000, 0).expavgCredit, 500);
  });

  it("decays 1000 over 1 day to 905.7236642639067", () => {
    // 1000 · 2^(−1/7)
    expectRel(at(DAY, 1000, 0).expavgCredit, 905.7236642639067);
  });

  it("avg 100, +50 after 7 days: 53.571428571428569", () => {
    // 100·½ + ½·50/7
    expectRel(at(7 * DAY, 100, 50).expavgCredit, 53.571428571428569);
  });

  it("avg 100, +50 after 1 day: 95.286183213195343", () => {
    expectRel(at(DAY, 100, 50).expavgCredit, 95.286183213195343);
  });

  it("avg 100, +50 after 1 s (exact branch): 104.95093384473434", () => {
    expectRel(at(1, 100, 50).expavgCredit, 104.95093384473434);
  });

  it("avg 100, +50 after 0.5 s (Taylor branch): 104.95099398589593", () => {
    expectRel(at(0.5, 100, 50).expavgCredit, 104.95099398589593);
  });

  it("avg 100, +50 after 0 s: 104.95105128971389 (= 100 + 50·ln2/7)", () => {
    expectRel(at(0, 100, 50).expavgCredit, 104.95105128971389);
    expectRel(at(0, 100, 50).expavgCredit, 100 + (50 * Math.LN2) / 7);
  });

  it("clamps a negative gap to 0: 104.95105128971389; the time stays (it never runs backwards, SECURITY.md)", () => {
    const ra = at(-3600, 100, 50);
    expectRel(ra.expavgCredit, 104.95105128971389);
    expect(ra.expavgTime).toBe(T0);
  });

  it("a clock set only by a creation time (average 0) follows an earlier now: a backfill's first grant starts it there", () => {
    // avg 0, +50 an hour before the stored time: zero gap, so 50·ln2/7; the time moves to now.
    const ra = at(-3600, 0, 50);
    expectRel(ra.expavgCredit, (50 * Math.LN2) / 7);
    expect(ra.expavgTime).toBe(T0 - 3600);
  });

  it("100 credit/day for 200 days from avg_time = 1 converges to 99.999999749306539", () => {
    // Case A only: after k days 100·(1 − 2^(−k/7)); k = 200 → 100·(1 − 2^(−200/7))
    let ra = { expavgCredit: 0, expavgTime: 1 };
    for (let k = 1; k <= 200; k++) ra = updateRecentAverage(ra, 1 + k * DAY, 1 + (k - 1) * DAY, 100);
    expectRel(ra.expavgCredit, 99.999999749306539);
  });
});

describe("update_average: the Taylor/exact switch at 1 − w = 1e-6 (≈ 0.87254 s, docs/spec/edge-cases.md#e16)", () => {
  // The switch: 1 − 2^(−d/604800) = 1e-6 ⇔ d = −604800·log2(1 − 1e-6) ≈ 0.8725418 s
  const switchGap = -604800 * Math.log2(1 - 1e-6);
  const w = (d: number) => Math.pow(2, -d / 604800);
  const taylor = (d: number) => 100 * w(d) + 50 * (Math.LN2 / 7);
  const exact = (d: number) => 100 * w(d) + (1 - w(d)) * (50 / (d / 86400));
  const at = (gap: number) => updateRecentAverage({ expavgCredit: 100, expavgTime: T0 }, T0 + gap, T0, 50).expavgCredit;

  it("puts the switch between 0.872 s and 0.873 s", () => {
    expect(switchGap).toBeGreaterThan(0.872);
    expect(switchGap).toBeLessThan(0.873);
  });

  it("takes the Taylor form at 0.87 s", () => {
    expectRel(at(0.87), taylor(0.87));
    // …which differs from the exact form by more than the tolerance, so the test can tell
    expect(Math.abs(taylor(0.87) - exact(0.87)) / taylor(0.87)).toBeGreaterThan(1e-9);
  });

  it("takes the exact form at 0.875 s", () => {
    expectRel(at(0.875), exact(0.875));
    expect(Math.abs(taylor(0.875) - exact(0.875)) / exact(0.875)).toBeGreaterThan(1e-9);
  });

  it("uses the rate ln2·86400/604800 = ln2/7 per credit", () => {
    expectRel(TAYLOR_RATE, Math.LN2 / 7);
  });
});

describe("decay for display (docs/spec/credit.md#decay-for-display): avg·2^(−(t − avg_time)/604800)", () => {
  it("halves 1000 after 7 days", () => {
    expectRel(decayedRecentAverage({ expavgCredit: 1000, expavgTime: T0 }, T0 + 7 * DAY), 500);
  });

  it("gives 905.7236642639067 after 1 day (docs/spec/credit.md#reference-values)", () => {
    expectRel(decayedRecentAverage({ expavgCredit: 1000, expavgTime: T0 }, T0 + DAY), 905.7236642639067);
  });

  it("equals update_average with no work", () => {
    const ra = { expavgCredit: 321, expavgTime: T0 };
    expect(decayedRecentAverage(ra, T0 + 3 * DAY)).toBe(updateRecentAverage(ra, T0 + 3 * DAY, T0, 0).expavgCredit);
  });

  it("does not grow when read before avg_time", () => {
    expect(decayedRecentAverage({ expavgCredit: 1000, expavgTime: T0 }, T0 - DAY)).toBe(1000);
    expect(decayWeight(T0 - DAY, T0)).toBe(1);
  });

  it("leaves a never-updated average (expavg_time = 0) as it is", () => {
    expect(decayedRecentAverage({ expavgCredit: 7, expavgTime: 0 }, T0)).toBe(7);
  });
});
