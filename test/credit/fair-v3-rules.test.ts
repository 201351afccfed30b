/**
 * Version 3's rules (docs/spec/fair-policy.md#r11, #r31, #r32, #founders), with numbers worked
 * out by hand. The claim setup of fair-claim-setup.ts: a mature version with L = 2 and its own
 * scale 0.5 from a rescale at S = 1, est = 1e12, an established host with q = ln 2 (a result
 * with r = f / 1e9 has z = ln(r / 2)).
 */
import { describe, expect, it } from "vitest";
import { type FairVersionForScaling, clampToAnchor, computeFairScales } from "../../src/credit/fair-scales";
import { NEW_FAIR_VERSION, newFairHost } from "../../src/credit/fair-state";
import { FAIR } from "../../src/credit/parameters";
import { EST, HOST, VERSION, claim } from "./fair-claim-setup";
import { expectRel } from "./close";

const version = (id: number, n: number, level: number, planClass = ""): FairVersionForScaling => ({
  id,
  planClass,
  fair: { ...NEW_FAIR_VERSION, n, level },
});

describe("E, the expected PFC (docs/spec/fair-policy.md#r11)", () => {
  it("is est × S for a version a rescale scaled, whatever its level has done since", () => {
    // S = 1.2 now, L = 2, s = 0.5: est × S = 1.2e12, where est × L × s would be 1e12.
    const young = claim(5, { host: newFairHost(VERSION), appLevel: 1.2 });
    expect(young.rule).toBe("young_host");
    expectRel(young.pfc, 1.2e12);
  });

  it("is est × L × seed scale for a version no rescale has scaled yet", () => {
    // L = 2, seed 0.5: 1e12 whatever S is.
    const out = claim(5, { host: newFairHost(VERSION), version: { ...VERSION, ownScale: false }, appLevel: 1.2 });
    expectRel(out.pfc, EST * 2 * 0.5);
  });
});

describe("the anchor and the clamp (docs/spec/fair-policy.md#r31)", () => {
  it("is taken at the first rescale whose mature versions hold 1,000 samples, with S itself", () => {
    // Two CPU versions: S = (600 × 2 + 399 × 3) / 999 = 2.3993993993993996, 999 samples: no anchor yet.
    const before = computeFairScales([version(1, 600, 2), version(2, 399, 3)], null);
    expect([before.sRef, before.anchoredNow, before.sealed.size]).toEqual([null, false, 0]);
    expectRel(before.level!, (600 * 2 + 399 * 3) / 999);
    // One more sample: S = (600 × 2 + 400 × 3) / 1000 = 2.4 becomes S_ref, and both versions are sealed.
    const at = computeFairScales([version(1, 600, 2), version(2, 400, 3)], null);
    expectRel(at.sRef!, 2.4);
    expect([at.anchoredNow, at.clamped, [...at.sealed].sort()]).toEqual([true, false, [1, 2]]);
    expectRel(at.level!, 2.4);
    // The scales are S / L: 1.2 and 0.8; both versions now have their own.
    expectRel(at.scales.get(1)!, 1.2);
    expectRel(at.scales.get(2)!, 0.8);
    expect([...at.ownScale].sort()).toEqual([1, 2]);
  });

  it("then holds S within 3% of S_ref, and says so", () => {
    // S would be 2.4 against S_ref = 2: held at 2 × 1.03 = 2.06.
    const held = computeFairScales([version(1, 600, 2), version(2, 400, 3)], null, { sRef: 2 });
    expectRel(held.level!, 2.06);
    expectRel(held.rawLevel!, 2.4);
    expect([held.clamped, held.anchoredNow, held.sRef]).toEqual([true, false, 2]);
    // The versions are paid against the held S: 2.06 / 2 and 2.06 / 3.
    expectRel(held.scales.get(1)!, 1.03);
    expectRel(held.scales.get(2)!, 2.06 / 3);
    // Below: held at 2 / 1.03; within: unchanged.
    expectRel(clampToAnchor(1.5, 2), 2 / 1.03);
    expect(clampToAnchor(2.05, 2)).toBe(2.05);
    expect(FAIR.anchorDrift).toBe(Math.log(1.03));
  });

  it("seals a version that matures after the anchor at its first mature rescale, not before", () => {
    const young = version(3, 99, 2.2);
    const first = computeFairScales([version(1, 1000, 2), young], null, { sRef: 2 });
    expect(first.sealed.has(3)).toBe(false);
    expect(first.ownScale.has(3)).toBe(false);
    const later = computeFairScales([version(1, 1000, 2), version(3, 100, 2.2)], null, { sRef: 2 });
    expect(later.sealed.has(3)).toBe(true);
    // S = (1000 × 2 + 100 × 2.2) / 1100 = 2.0181818…, within 3%: not clamped.
    expectRel(later.level!, 2220 / 1100);
    expect(later.clamped).toBe(false);
  });
});

describe("founders (docs/spec/fair-policy.md#founders)", () => {
  const sealed = { ...VERSION, sealed: true };

  it("a row created while its version is sealed is not a founder; one created before is", () => {
    expect(newFairHost(sealed).founder).toBe(false);
    expect(newFairHost(VERSION).founder).toBe(true);
  });

  it("a host that is not a founder of a sealed version is paid as anyone, and moves nothing of the version", () => {
    // r = 2.4: z = ln 1.2, inside the band; w_v = 1 (band ln 9), so paid E × 1.2 = 1.2e12.
    const out = claim(2.4, { host: { ...HOST, founder: false }, version: sealed });
    expect(out.rule).toBe("normalized");
    expectRel(out.pfc, 1.2e12);
    expect(out.heldOutBySeal).toBe(true);
    expect(out.feedsQuantiles).toBe(false);
    // The version is exactly as before: level, samples, quantiles, high-z share.
    expect(out.version).toEqual(sealed);
    // The host's own statistics move as always (q 2% toward z), but its high-z share does not start.
    expectRel(out.host.q!, Math.log(2) + 0.02);
    expect(out.host.f).toBeNull();
  });

  it("a founder of the sealed version feeds it as under version 2", () => {
    const out = claim(2.4, { host: HOST, version: sealed });
    expect(out.heldOutBySeal).toBe(false);
    expect(out.feedsQuantiles).toBe(true);
    // The level takes q after the step, ln 2 + 0.02: L += (e^(ln 2 + 0.02) − 2) / 101.
    expectRel(out.version.level!, 2 + (2 * Math.exp(0.02) - 2) / 101);
    expect(out.version.zn).toBe(VERSION.zn + 1);
  });

  it("before the seal a row that is not a founder feeds like any other (the flag only counts once sealed)", () => {
    const out = claim(2.4, { host: { ...HOST, founder: false }, version: VERSION });
    expect(out.feedsQuantiles).toBe(true);
    expect(out.version.n).toBe(VERSION.n + 1);
  });
});
