import { describe, expect, it } from "vitest";
import { lowAverage, peggedAverage } from "../../src/credit/averaging";
import { expectRel } from "./close";

describe("pegged_average (weight 1/(0.1·anchor + |anchor − x|)) — docs/spec/credit.md#reference-values", () => {
  it("pegged({1e12, 2e12, 1.1e12}, anchor 1e12) = 1088571428571.4288", () => {
    // in units of 1e12: weights 1/0.1 = 10, 1/1.1, 1/0.2 = 5
    // (10·1 + 2/1.1 + 5·1.1) / (10 + 1/1.1 + 5)
    expectRel(peggedAverage([1e12, 2e12, 1.1e12], 1e12), 1088571428571.4288);
  });

  it("pegged({5e12, 5e12, 1e12}, anchor 1e12) = 1186046511627.907", () => {
    // weights 1/4.1, 1/4.1, 10: (2·5/4.1 + 10) / (2/4.1 + 10)
    expectRel(peggedAverage([5e12, 5e12, 1e12], 1e12), 1186046511627.907);
  });

  it("returns a single value unchanged, however far from the anchor", () => {
    expect(peggedAverage([7e15], 1e12)).toBe(7e15);
  });

  it("pulls two values toward the one nearer the anchor: {1e12, 2e12} → 13/12·1e12", () => {
    // weights 10 and 1/1.1 = 10/11: (10 + 20/11)/(10 + 10/11) = (130/11)/(120/11) = 13/12
    expectRel(peggedAverage([1e12, 2e12], 1e12), (13 / 12) * 1e12);
  });
});

describe("low_average (Σ x·(S − x) / ((n − 1)·S)) — docs/spec/credit.md#reference-values", () => {
  it("low_average({10, 20, 30}) = 18.333333333333332", () => {
    // (10·50 + 20·40 + 30·30) / (2·60) = 2200/120
    expectRel(lowAverage([10, 20, 30]), 18.333333333333332);
  });

  it("low_average({10, 1000}) = 19.801980198019802", () => {
    // (10·1000 + 1000·10) / (1·1010) = 20000/1010
    expectRel(lowAverage([10, 1000]), 19.801980198019802);
  });

  it("returns a single value unchanged", () => {
    expect(lowAverage([42])).toBe(42);
  });
});
