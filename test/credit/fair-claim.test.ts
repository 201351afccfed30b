/** docs/spec/fair-policy.md#r1, one rule at a time, with numbers worked out by hand (setup: fair-claim-setup.ts). */
import { describe, expect, it } from "vitest";
import { FAIR } from "../../src/credit/parameters";
import { NEW_FAIR_HOST } from "../../src/credit/fair-state";
import { E, HOST, VERSION, claim } from "./fair-claim-setup";
import { expectRel } from "./close";

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

  it("five outliers in a row on one side re-learn the host, keeping its error rate, high-z share and founder flag", () => {
    const out = claim(8, { host: { ...HOST, run: 4, err: 0.05, f: 0.05 } });
    expectRel(out.pfc, E);
    // z = ln 4 > t_hi: the share moves 2% toward 1 before the re-learn, which keeps it.
    expect(out.host).toEqual({ n: 0, q: null, buf: [], run: 0, err: 0.05, f: 0.05 + 0.02 * (1 - 0.05), founder: true });
    // A row that is not a founder stays one after a re-learn (docs/spec/fair-policy.md#founders).
    expect(claim(8, { host: { ...HOST, run: 4, founder: false } }).host.founder).toBe(false);
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
    const out = claim(3, {
      host: NEW_FAIR_HOST,
      version: { ...VERSION, n: 0, level: null, scale: null, ownScale: false },
      defaultScale: 0.1,
    });
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

describe("the 2× band on a version's level", () => {
  const young = (r: number, version = VERSION) => claim(r, { host: NEW_FAIR_HOST, version });
  it("leaves out a sample more than 2× from the level", () => {
    expect(young(4.1).version.level).toBe(2);
    expect(young(0.97).version.level).toBe(2);
  });
  it("feeds one within it", () => {
    expectRel(young(3.9).version.level!, 2 + (3.9 - 2) / 101);
  });
  it("applies from the version's 20th sample (version 2; version 1 waited for the 100th)", () => {
    // 50 samples, level 2: a claim of 8 (4× the level) is left out.
    const v50 = young(8, { ...VERSION, n: 50 }).version;
    expect([v50.n, v50.level]).toEqual([50, 2]);
    // 20 samples: the first one the band applies to.
    const v20 = young(8, { ...VERSION, n: 20 }).version;
    expect([v20.n, v20.level]).toEqual([20, 2]);
  });
  it("takes every one of the first 20 samples into the bootstrap median", () => {
    // 19 samples of ln 2: the 20th, ln 8, is taken; the median of the 20 stays ln 2.
    const v19 = young(8, { ...VERSION, n: 19, buf: Array(19).fill(Math.log(2)) }).version;
    expect([v19.n, v19.buf]).toEqual([20, []]);
    expectRel(v19.level!, 2);
    // One sample of ln 2: with ln 8 the median is (ln 2 + ln 8) / 2 = ln 4.
    const v1 = young(8, { ...VERSION, n: 1, buf: [Math.log(2)] }).version;
    expectRel(v1.level!, 4);
  });
});
