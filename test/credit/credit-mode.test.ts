import { describe, expect, it } from "vitest";
import { capGrantedCredit, creditFromRuntime } from "../../src/credit/credit-mode";
import { expectRel } from "./close";

const WU = { rscFpopsEst: 1e12, rscFpopsBound: 1e13 };
const MAX = 73_000_000;
/** credit of a PFC: 200 credits per 86400e9 FLOP */
const credit = (pfc: number) => (pfc * 200) / 86400e9;
const run = (elapsedTime: number, flopsEstimate: number) => ({ elapsedTime, flopsEstimate });

describe("credit_from_runtime (docs/spec/edge-cases.md#e22)", () => {
  it("credits a single result elapsed × flops", () => {
    expect(creditFromRuntime([run(100, 1e10)], WU, MAX)).toBe(credit(1e12));
  });

  it("combines results with low_average: {1e12, 3e12} → 2ab/(a+b) = 1.5e12", () => {
    // low_average of two values: (a·b + b·a)/((2−1)(a+b)) = 2·1·3/4 = 1.5 (units 1e12)
    expectRel(creditFromRuntime([run(100, 1e10), run(300, 1e10)], WU, MAX), credit(1.5e12));
  });

  it("replaces the 1e9 sentinel by 4.3e9", () => {
    expectRel(creditFromRuntime([run(100, 1e9)], WU, MAX), credit(4.3e11));
  });

  it("drops a claim ≤ 0 (no 4.3e9 substitution for flops ≤ 0)", () => {
    expect(creditFromRuntime([run(100, 0), run(100, 1e10)], WU, MAX)).toBe(credit(1e12));
    expect(creditFromRuntime([run(100, -1)], WU, MAX)).toBe(0);
  });

  it("has no cpu_time fallback: elapsed 0 claims 0 and is dropped", () => {
    expect(creditFromRuntime([run(0, 1e10)], WU, MAX)).toBe(0);
  });

  it("lets a claim in (bound, 2·bound] through", () => {
    // 1500 s × 1e10 = 1.5e13, bound 1e13
    expect(creditFromRuntime([run(1500, 1e10)], WU, MAX)).toBe(credit(1.5e13));
    expect(creditFromRuntime([run(2000, 1e10)], WU, MAX)).toBe(credit(2e13));
  });

  it("resets a claim above 2·bound to 1·bound", () => {
    // 2001 s × 1e10 = 2.001e13 > 2e13 → 1e13
    expect(creditFromRuntime([run(2001, 1e10)], WU, MAX)).toBe(credit(1e13));
  });

  it("drops a claim above max_granted_credit instead of capping it", () => {
    // 3e12 → 6.94 credit > 5: dropped; 1e12 → 2.31 kept alone
    expect(creditFromRuntime([run(300, 1e10), run(100, 1e10)], WU, 5)).toBe(credit(1e12));
  });

  it("gives 0 when nothing remains", () => {
    expect(creditFromRuntime([], WU, MAX)).toBe(0);
  });
});

describe("the final max_granted_credit cap", () => {
  it("caps at max_granted_credit", () => {
    expect(capGrantedCredit(1e9, MAX)).toBe(73_000_000);
    expect(capGrantedCredit(12.5, MAX)).toBe(12.5);
  });

  it("is disabled by 0", () => {
    expect(capGrantedCredit(1e9, 0)).toBe(1e9);
  });
});
