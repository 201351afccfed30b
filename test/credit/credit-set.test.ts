import { describe, expect, it } from "vitest";
import { EMPTY_AVERAGE, EMPTY_AVERAGE_VAR } from "../../src/credit/average";
import { type Claim, claimFromPfc, creditFromClaims } from "../../src/credit/credit-set";
import type { AppCreditSettings, PfcMode, PfcResult } from "../../src/credit/pfc";
import { expectRel } from "./close";

const WU = { rscFpopsEst: 1e12, rscFpopsBound: 1e13 };
const APP: AppCreditSettings = { minAvgPfc: 1, hostScaleCheck: false };
const MAX = 73_000_000;
/** credit of a PFC: 200 credits per 86400e9 FLOP */
const credit = (pfc: number) => (pfc * 200) / 86400e9;

/** get_pfc's answer reduced to what assign_credit_set reads: the claim and its mode. */
const pfcResult = (pfc: number, mode: PfcMode): PfcResult => ({
  pfc,
  mode,
  rawPfc: pfc,
  versionScale: 0,
  hostScale: 0,
  runtimeOutlier: false,
  havSamples: {},
  hav: { pfc: EMPTY_AVERAGE, et: EMPTY_AVERAGE_VAR, turnaround: EMPTY_AVERAGE_VAR, consecutiveValid: 0 },
});
const claim = (pfc: number, mode: PfcMode, max = MAX): Claim => claimFromPfc(pfcResult(pfc, mode), WU, max);

describe("assign_credit_set per result: the bound cap and the max_granted test (docs/spec/edge-cases.md#e24)", () => {
  it("caps a claim above rsc_fpops_bound to the bound and keeps its mode", () => {
    const c = claim(5e13, "normal");
    expect(c.cappedPfc).toBe(1e13);
    expect(c.mode).toBe("normal");
    expect(c.claimedCredit).toBe(23.148148148148149); // credit(1e13 FLOP), docs/spec/credit.md#reference-values
  });

  it("leaves a claim at or under the bound alone", () => {
    expect(claim(1e13, "approx").cappedPfc).toBe(1e13);
    expect(claim(3e12, "approx").cappedPfc).toBe(3e12);
  });

  it("marks a claim over max_granted_credit INVALID", () => {
    // 1e12 FLOP = 2.3148… credit > 2
    const c = claim(1e12, "normal", 2);
    expect(c.mode).toBe("invalid");
    expectRel(c.claimedCredit, credit(1e12));
  });

  it("keeps a claim of exactly max_granted_credit", () => {
    expect(claim(1e12, "approx", credit(1e12)).mode).toBe("approx");
  });

  it("has no max_granted test when max_granted_credit is 0", () => {
    expect(claim(1e13, "approx", 0).mode).toBe("approx");
  });
});

describe("assign_credit_set averaging (docs/spec/edge-cases.md#e23), anchor = rsc_fpops_est × min_avg_pfc = 1e12", () => {
  it("two NORMAL claims ignore the APPROX ones", () => {
    // pegged({1e12, 2e12}): weights 10 and 10/11 (units 1e11) → 13/12 · 1e12
    const x = creditFromClaims([claim(1e12, "normal"), claim(2e12, "normal"), claim(9e12, "approx")], WU, APP);
    expectRel(x, credit((13 / 12) * 1e12));
  });

  it("a single NORMAL claim counts twice among the APPROX ones", () => {
    // pegged({1e12 approx, 2e12, 2e12}): (10 + 2·2·10/11)/(10 + 2·10/11) = (150/11)/(130/11) = 15/13
    const x = creditFromClaims([claim(1e12, "approx"), claim(2e12, "normal")], WU, APP);
    expectRel(x, credit((15 / 13) * 1e12));
  });

  it("treats WU_EST claims like APPROX ones", () => {
    const x = creditFromClaims([claim(1e12, "wu_est"), claim(2e12, "approx")], WU, APP);
    expectRel(x, credit((13 / 12) * 1e12));
  });

  it("drops INVALID claims", () => {
    const x = creditFromClaims([claim(2e12, "approx"), claim(1e12, "approx", 2)], WU, APP);
    expectRel(x, credit(2e12)); // the one claim left, returned unchanged by pegged_average
  });

  it("with nothing left grants the workunit estimate rsc_fpops_est × min_avg_pfc", () => {
    const app = { ...APP, minAvgPfc: 0.5 };
    expectRel(creditFromClaims([claim(1e12, "approx", 2)], WU, app), credit(5e11));
    expectRel(creditFromClaims([], WU, app), credit(5e11));
  });

  it("anchors at rsc_fpops_est when min_avg_pfc is 0", () => {
    expectRel(creditFromClaims([], WU, { ...APP, minAvgPfc: 0 }), credit(1e12));
  });

  it("averages the capped claims, not the raw ones", () => {
    // 5e13 and 9e13 both cap to 1e13; pegged of equal values is that value
    const x = creditFromClaims([claim(5e13, "approx"), claim(9e13, "approx")], WU, APP);
    expectRel(x, 23.148148148148149); // credit(1e13 FLOP), docs/spec/credit.md#reference-values
  });
});
