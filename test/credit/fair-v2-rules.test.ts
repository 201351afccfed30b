/**
 * Version 2's rules (docs/spec/fair-policy.md#r14, docs/spec/fair-policy.md#r17, and
 * docs/spec/fair-policy.md#r0 for the error row), with numbers worked out by hand.
 * The setup of fair-claim-setup.ts: E = 1e12, an established host with q = ln 2, so a result
 * with r = f / 1e9 has z = ln(r / 2).
 */
import { describe, expect, it } from "vitest";
import {
  type FairVersionState,
  NEW_FAIR_HOST,
  NEW_FAIR_VERSION,
  afterError,
  fairErrorEffect,
  paidShare,
  quantileGate,
} from "../../src/credit/fair-state";
import { E, HOST, VERSION, claim } from "./fair-claim-setup";
import { expectRel } from "./close";

/** A version whose z band is t_hi − t_lo = width. */
const band = (tHi: number, tLo: number): FairVersionState => ({ ...VERSION, tHi, tLo });

describe("w_v, the paid share of z (docs/spec/fair-policy.md#r14)", () => {
  it("is 0 at a band of ln 2 and below, 1 at ln 4 and above, linear between", () => {
    expect(paidShare(band(Math.log(2), 0))).toBe(0);
    expect(paidShare(band(Math.log(1.5), 0))).toBe(0);
    expect(paidShare(band(Math.log(4), 0))).toBe(1);
    expect(paidShare(band(Math.log(9), 0))).toBe(1);
    // ln 2√2 = 1.5 ln 2: (1.5 ln 2 − ln 2) / (ln 4 − ln 2) = 0.5.
    expectRel(paidShare(band(1.5 * Math.log(2), 0)), 0.5);
    // ln 3: (ln 3 − ln 2) / ln 2 = log2(1.5) = 0.5849625007211562.
    expectRel(paidShare(band(Math.log(3), 0)), 0.5849625007211562);
  });

  it("at w_v = 0 (band from 0 to ln 2) a claim 0.9×, 1.2× or 1.5× the host's typical one is paid exactly E", () => {
    const noise = band(Math.log(2), 0);
    for (const r of [1.8, 2.4, 3]) {
      // z = ln 0.9, ln 1.2 or ln 1.5: within [0 − ln 1.25, ln 2 + ln 1.25], not an outlier.
      const out = claim(r, { version: noise });
      expect(out.rule).toBe("normalized");
      expect(out.paidShare).toBe(0);
      expect(out.pfc).toBe(E);
    }
  });

  it("at w_v = 0.5 (band from ln(1/√2) to ln 2) pays E × e^(z/2) = E × √1.2 for z = ln 1.2", () => {
    const out = claim(2.4, { version: band(Math.log(2), -Math.log(Math.SQRT2)) });
    expectRel(out.paidShare, 0.5);
    expectRel(out.pfc, E * Math.sqrt(1.2));
  });

  it("at w_v = 1 (band ln 9) pays E × e^z = 1.2 E, as version 1 did", () => {
    const out = claim(2.4);
    expect(out.paidShare).toBe(1);
    expectRel(out.pfc, 1.2e12);
  });

  it("is the version's before this result, though the result moves the quantiles", () => {
    const v = band(Math.log(2), -Math.log(Math.SQRT2));
    const out = claim(2.4, { version: v });
    expect(out.version.tHi).not.toBe(v.tHi);
    expectRel(out.paidShare, paidShare(v));
  });
});

describe("the gate on the z quantiles (docs/spec/fair-policy.md#r17)", () => {
  it("is max(3 f_v, f_v + 0.10)", () => {
    expectRel(quantileGate({ ...VERSION, fv: 0.02 }), 0.12);
    expectRel(quantileGate({ ...VERSION, fv: 0.01 }), 0.11);
    expectRel(quantileGate({ ...VERSION, fv: 0.1 }), 0.3);
    expect(NEW_FAIR_VERSION.fv).toBeCloseTo(0.02, 15);
  });

  it("starts a new record at the gate: an ordinary z (below t_hi) moves it under and feeds the quantiles", () => {
    // f starts at max(3 × 0.02, 0.02 + 0.10) = 0.12; z = ln 1.2 < t_hi: f = 0.12 − 0.02 × 0.12 = 0.1176 ≤ 0.12.
    const out = claim(2.4);
    expectRel(out.host.f!, 0.1176);
    expectRel(out.version.fv, 0.02 - 0.002 * 0.02);
    expect(out.feedsQuantiles).toBe(true);
    expect(out.heldOutByGate).toBe(false);
    expect(out.version.zn).toBe(301);
  });

  it("holds a new record out when its first z is above t_hi", () => {
    // r = 7: z = ln 3.5, above t_hi = ln 3 but not an outlier (below ln 3.75). Paid E × 3.5.
    const out = claim(7);
    expect(out.rule).toBe("normalized");
    expectRel(out.pfc, 3.5e12);
    // f = 0.12 + 0.02 × (1 − 0.12) = 0.1376 > 0.12: held out; the version's share still moves.
    expectRel(out.host.f!, 0.1376);
    expectRel(out.version.fv, 0.02 + 0.002 * 0.98);
    expect(out.heldOutByGate).toBe(true);
    expect(out.feedsQuantiles).toBe(false);
    expect([out.version.tHi, out.version.tLo, out.version.zn]).toEqual([VERSION.tHi, VERSION.tLo, VERSION.zn]);
  });

  it("feeds a high z from a host whose share stays within the gate", () => {
    // f = 0.10 + 0.02 × 0.9 = 0.118 ≤ 0.12; t_hi += 0.05 × (1 − 0.02), t_lo += 0.05 × (1 − 0.98).
    const out = claim(7, { host: { ...HOST, f: 0.1 } });
    expectRel(out.host.f!, 0.118);
    expect(out.feedsQuantiles).toBe(true);
    expectRel(out.version.tHi, Math.log(3) + 0.049);
    expectRel(out.version.tLo, Math.log(1 / 3) + 0.001);
  });

  it("leaves both shares alone for a young host and for a host in bad standing", () => {
    const young = claim(2.4, { host: NEW_FAIR_HOST });
    expect([young.host.f, young.version.fv, young.feedsQuantiles]).toEqual([null, 0.02, false]);
    const bad = claim(2.4, { host: { ...HOST, err: 0.2, f: 0.05 } });
    expect([bad.host.f, bad.version.fv, bad.feedsQuantiles, bad.heldOutByGate]).toEqual([0.05, 0.02, false, false]);
  });
});

describe("an error for a host × version without a row (docs/spec/fair-policy.md#r0)", () => {
  it("creates the row and counts under the fair policy: err = 0.05", () => {
    expect(fairErrorEffect("error", false, true)).toEqual({ counts: true, createsRow: true });
    expectRel(afterError(NEW_FAIR_HOST).err, 0.05);
  });

  it("under boinc, counts only where a row exists (BOINC's own rule keeps a missing row missing)", () => {
    expect(fairErrorEffect("error", false, false)).toEqual({ counts: false, createsRow: false });
    expect(fairErrorEffect("error", true, false)).toEqual({ counts: true, createsRow: false });
    // A timeout's row exists already: BOINC creates it.
    expect(fairErrorEffect("timeout", true, false)).toEqual({ counts: true, createsRow: false });
  });

  it("an abort by the project neither counts nor creates a row", () => {
    expect(fairErrorEffect("aborted", false, true)).toEqual({ counts: false, createsRow: false });
  });
});
