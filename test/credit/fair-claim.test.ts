/**
 * FAIR_MODE R1, one rule at a time, with numbers worked out by hand. The common setup: a
 * mature version with level L = 2 and scale s = 0.5, a workunit of est = 1e12, so the
 * expected PFC E = est × L × s = 1e12; an established host whose typical PFC/est is 2.
 * A result of 1000 s at f FLOPS claims raw = 1000 f, i.e. r = raw / est = f / 1e9.
 */
import { describe, expect, it } from "vitest";
import { FAIR } from "../../src/credit/constants";
import { type FairClaimInput, fairClaim } from "../../src/credit/fair-claim";
import { type FairHostState, type FairVersionState, NEW_FAIR_HOST } from "../../src/credit/fair-state";
import { expectRel } from "./close";

const EST = 1e12;
const E = 1e12;
const VERSION: FairVersionState = { n: 100, level: 2, buf: [], tHi: Math.log(3), tLo: Math.log(1 / 3), zn: 300, scale: 0.5 };
const HOST: FairHostState = { n: 10, q: Math.log(2), buf: [], run: 0, err: 0 };

/** A result whose claim is r × est. */
function claim(r: number, over: Partial<FairClaimInput> = {}) {
  return fairClaim({
    result: { elapsedTime: 1000, cpuTime: 1000, flopsEstimate: r * 1e9 },
    wu: { rscFpopsEst: EST, rscFpopsBound: 100 * EST },
    hostScaleCheck: false,
    consecutiveValid: 20,
    host: HOST,
    version: VERSION,
    defaultScale: 1,
    ...over,
  });
}

describe("an established host", () => {
  it("is paid E × r / typical r, and its typical value moves 2% toward the claim", () => {
    const out = claim(2.4);
    expect(out.rule).toBe("normalized");
    // E × e^z with z = ln 2.4 − ln 2 = ln 1.2.
    expectRel(out.pfc, 1.2e12);
    expectRel(out.host.q!, Math.log(2) + 0.02);
    expect(out.host.run).toBe(0);
  });

  it("moves the version's z quantiles by one step of 0.05 (after the first 200)", () => {
    const out = claim(2.4);
    // z = ln 1.2 is below t_hi (ln 3): t_hi −= 0.05 × 0.02; above t_lo: t_lo += 0.05 × (1 − 0.98).
    expectRel(out.version.tHi, Math.log(3) - 0.001);
    expectRel(out.version.tLo, Math.log(1 / 3) + 0.001);
    expect(out.version.zn).toBe(301);
  });

  it("feeds its new typical value to the version level as a running mean, weight 1/(n+1)", () => {
    const out = claim(2.4);
    expect(out.version.n).toBe(101);
    expectRel(out.version.level!, 2 + (2 * Math.exp(0.02) - 2) / 101);
  });

  it("a claim beyond the version's 98% quantile × 1.25 is a high outlier paid E", () => {
    // z = ln 4 > ln 3 + ln 1.25 = ln 3.75.
    const out = claim(8);
    expect(out.rule).toBe("outlier_high");
    expectRel(out.pfc, E);
    expect(out.host.run).toBe(1);
  });

  it("a low outlier is paid its normalised claim and counts a run downward", () => {
    // z = ln 0.25 < ln(1/3) − ln 1.25 = ln 0.2667.
    const out = claim(0.5, { host: { ...HOST, run: 2 } });
    expect(out.rule).toBe("outlier_low");
    expectRel(out.pfc, 0.25 * E);
    expect(out.host.run).toBe(-1);
  });

  it("five outliers in a row on one side re-learn the host, keeping its error rate", () => {
    const out = claim(8, { host: { ...HOST, run: 4, err: 0.05 } });
    expectRel(out.pfc, E);
    expect(out.host).toEqual({ n: 0, q: null, buf: [], run: 0, err: 0.05 });
  });

  it("host_scale_check with fewer than 10 consecutive valid caps the pay at E", () => {
    const capped = claim(2.4, { hostScaleCheck: true, consecutiveValid: 9 });
    expect(capped.rule).toBe("host_scale_check");
    expectRel(capped.pfc, E);
    expectRel(claim(2.4, { hostScaleCheck: true, consecutiveValid: 10 }).pfc, 1.2e12);
  });

  it("in bad standing: at most E and the raw claim × s, and no version statistic", () => {
    const out = claim(2.4, { host: { ...HOST, err: 0.2 } });
    expect(out.rule).toBe("bad_standing");
    // min(E × 1.2, E, raw × s = 2.4e12 × 0.5) = E.
    expectRel(out.pfc, E);
    expect(out.version).toBe(VERSION);
    // Its own typical value still moves.
    expectRel(out.host.q!, Math.log(2) + 0.02);
  });
});

describe("claims that carry no information", () => {
  it("an insane claim (r > 1e4) is paid E, never the bound, and counts as a high outlier", () => {
    const out = claim(1e5);
    expect(out.rule).toBe("insane");
    expectRel(out.pfc, E);
    expect(out.version).toBe(VERSION);
    expect(out.host).toEqual({ ...HOST, run: 1 });
  });

  it("non-finite measurements are insane; a workunit without a positive estimate pays 0", () => {
    const inf = claim(2, { result: { elapsedTime: Number.POSITIVE_INFINITY, cpuTime: 0, flopsEstimate: 1e9 } });
    expect(inf.rule).toBe("insane");
    expectRel(inf.pfc, E);
    const nan = claim(2, { result: { elapsedTime: 1000, cpuTime: 0, flopsEstimate: Number.NaN } });
    expectRel(nan.pfc, E);
    const noEstimate = claim(2, { wu: { rscFpopsEst: 0, rscFpopsBound: 1 } });
    expect(noEstimate).toMatchObject({ pfc: 0, rule: "no_estimate" });
  });
});

describe("a young host", () => {
  it("is paid E whatever it claims", () => {
    for (const r of [1, 10, 1000]) {
      const out = claim(r, { host: NEW_FAIR_HOST });
      expect(out.rule).toBe("young_host");
      expectRel(out.pfc, E);
    }
  });

  it("is paid its raw claim × the seed scale while the version has no level", () => {
    const out = claim(3, { host: NEW_FAIR_HOST, version: { ...VERSION, n: 0, level: null, scale: null }, defaultScale: 0.1 });
    expectRel(out.pfc, 3e12 * 0.1);
  });

  it("becomes established at 10 samples with their exact median", () => {
    let host = NEW_FAIR_HOST;
    const ratios = [7, 1, 9, 3, 5, 10, 2, 8, 4, 6];
    for (const r of ratios) host = claim(r, { host }).host;
    // Median of ln 1 … ln 10: the mean of ln 5 and ln 6.
    expectRel(host.q!, (Math.log(5) + Math.log(6)) / 2);
    expect(host.buf).toEqual([]);
    expect(host.n).toBe(FAIR.hostSamples);
  });
});

describe("the 2× band on a mature version's level", () => {
  const young = (r: number) => claim(r, { host: NEW_FAIR_HOST });
  it("leaves out a sample more than 2× from the level", () => {
    expect(young(4.1).version.level).toBe(2);
    expect(young(0.97).version.level).toBe(2);
  });
  it("feeds one within it", () => {
    expectRel(young(3.9).version.level!, 2 + (3.9 - 2) / 101);
  });
  it("does not apply before the version is mature", () => {
    const v = { ...VERSION, n: 50 };
    expectRel(claim(8, { host: NEW_FAIR_HOST, version: v }).version.level!, 2 + (8 - 2) / 51);
  });
});
