import { describe, expect, it } from "vitest";
import {
  NEW_FAIR_HOST,
  NEW_FAIR_VERSION,
  addLevelSample,
  addZSample,
  afterError,
  afterValid,
  errorCountsAgainstHost,
  inGoodStanding,
  median,
} from "../../src/credit/fair-state";
import { expectRel } from "./close";

describe("the error rate (docs/spec/fair-policy.md#r0)", () => {
  it("rises by 5% of the gap per error or timeout and falls 5% per valid result", () => {
    let h = NEW_FAIR_HOST;
    const expected = [0.05, 0.0975, 0.142625];
    for (const e of expected) {
      h = afterError(h);
      expectRel(h.err, e);
    }
    expect(inGoodStanding({ ...h, err: 0.0975 })).toBe(true);
    // Above 0.10: bad standing.
    expect(inGoodStanding(h)).toBe(false);
    expectRel(afterValid(h).err, 0.142625 * 0.95);
  });

  it("counts client errors and timeouts, not an abort by the project", () => {
    expect(errorCountsAgainstHost("error")).toBe(true);
    expect(errorCountsAgainstHost("timeout")).toBe(true);
    expect(errorCountsAgainstHost("aborted")).toBe(false);
  });
});

describe("the version level's bootstrap", () => {
  it("is the median of its first 20 samples, then a running mean with weight 1/(n+1)", () => {
    let v = NEW_FAIR_VERSION;
    // ln 1 … ln 20: the median is the mean of ln 10 and ln 11, i.e. ln √110.
    for (let k = 1; k <= 20; k++) v = addLevelSample(v, Math.log(k));
    expectRel(v.level!, Math.sqrt(110));
    expect(v.buf).toEqual([]);
    v = addLevelSample(v, Math.log(42));
    expectRel(v.level!, Math.sqrt(110) + (42 - Math.sqrt(110)) / 21);
  });

  it("weighs a sample at least 0.002 once the version has 500 samples", () => {
    const v = addLevelSample({ ...NEW_FAIR_VERSION, n: 1000, level: 2 }, Math.log(3));
    expectRel(v.level!, 2 + 0.002 * (3 - 2));
  });
});

describe("the z quantiles", () => {
  it("step 0.10 for the first 200 samples", () => {
    const v = addZSample(NEW_FAIR_VERSION, 5);
    // z above both: t_hi += 0.1 × (1 − 0.02), t_lo += 0.1 × (1 − 0.98).
    expectRel(v.tHi, Math.log(3) + 0.098);
    expectRel(v.tLo, Math.log(1 / 3) + 0.002);
  });
});

describe("median", () => {
  it("of an odd and an even count", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
