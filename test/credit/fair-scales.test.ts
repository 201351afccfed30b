import { describe, expect, it } from "vitest";
import { PFC_SANE_MAX } from "../../src/credit/constants";
import { type FairVersionForScaling, computeFairScales, seedScale } from "../../src/credit/fair-scales";
import { boundFairClaim, fairWorkunitCredit } from "../../src/credit/fair-credit";
import { NEW_FAIR_VERSION } from "../../src/credit/fair-state";
import type { ScaleRegistry } from "../../src/credit/gpu-only-factor";
import { expectRel } from "./close";

const registry: ScaleRegistry = {
  version: 1,
  planClasses: new Map([
    ["cuda", 0.15],
    ["ati", 0.2],
    ["sse2", 0.9],
  ]),
  procTypes: new Map([["nvidia", 0.12]]),
};

const version = (id: number, planClass: string, n: number, level: number): FairVersionForScaling => ({
  id,
  planClass,
  fair: { ...NEW_FAIR_VERSION, n, level },
});

describe("seed scales", () => {
  it("the registry's plan class, else (GPU) its processor type's, else 1 for a CPU and 0.1 for a GPU", () => {
    expect(seedScale(registry, "cuda")).toBe(0.15);
    expect(seedScale(registry, "sse2")).toBe(0.9);
    expect(seedScale(registry, "")).toBe(1);
    expect(seedScale(registry, "cuda_fermi")).toBe(0.12);
    expect(seedScale(registry, "opencl_intel_gpu")).toBe(0.1);
    expect(seedScale(null, "cuda")).toBe(0.1);
  });
});

describe("the fair rescale (docs/spec/fair-policy.md#r3)", () => {
  it("CPU and GPU: S = min of the n-weighted levels; young versions keep their seed", () => {
    const out = computeFairScales(
      [version(1, "", 100, 2), version(2, "", 300, 3), version(3, "cuda", 200, 20), version(4, "cuda", 99, 30)],
      registry,
    );
    // C = (2·100 + 3·300)/400 = 2.75; G = 20; S = 2.75.
    expect(out.basis).toBe("min_of_cpu_and_gpu");
    expectRel(out.level!, 2.75);
    expectRel(out.scales.get(1)!, 2.75 / 2);
    expectRel(out.scales.get(3)!, 2.75 / 20);
    expect(out.scales.get(4)).toBe(0.15);
  });

  it("a GPU-only app: S = G × the n-weighted registry scale of its plan classes", () => {
    const out = computeFairScales([version(1, "cuda", 100, 10), version(2, "ati", 300, 20)], registry);
    // G = (10·100 + 20·300)/400 = 17.5; f = (0.15·100 + 0.2·300)/400 = 0.1875.
    expect(out.basis).toBe("gpu_only");
    expectRel(out.level!, 17.5 * 0.1875);
    expectRel(out.scales.get(2)!, (17.5 * 0.1875) / 20);
  });

  it("a GPU-only app without a registry uses BOINC's 0.1", () => {
    const out = computeFairScales([version(1, "cuda", 150, 10)], null);
    expectRel(out.level!, 1);
  });

  it("no mature version: no level, only seeds", () => {
    const out = computeFairScales([version(1, "", 99, 2), version(2, "cuda", 5, 9)], null);
    expect(out.level).toBeNull();
    expect([...out.scales]).toEqual([
      [1, 1],
      [2, 0.1],
    ]);
  });
});

describe("the workunit credit (docs/spec/fair-policy.md#r2)", () => {
  const COBBLE = 200 / 86400e9;
  it("a single claim is its credit; two are pegged to the anchor", () => {
    expectRel(fairWorkunitCredit([4.32e14], 1e14, 0), 4.32e14 * COBBLE);
    // Anchor 1e12: weights 1/(1e11 + 0) and 1/(1e11 + 1e12) → (1e12·11 + 2e12·1)/12.
    expectRel(fairWorkunitCredit([1e12, 2e12], 1e12, 0), ((11e12 + 2e12) / 12) * COBBLE);
  });

  it("never NaN, infinite or negative, and max_granted_credit caps it", () => {
    expect(fairWorkunitCredit([Number.NaN], null, 0)).toBe(0);
    expect(fairWorkunitCredit([], null, 0)).toBe(0);
    expect(fairWorkunitCredit([1e20], 1e20, 1000)).toBe(1000);
    // A non-finite claim is paid est × s, within [0, bound].
    expect(boundFairClaim(Number.POSITIVE_INFINITY, 1e12, 5e13, 0.5)).toBe(5e11);
    expect(boundFairClaim(PFC_SANE_MAX * 1e12, 1e12, 5e13, 0.5)).toBe(5e13);
    expect(boundFairClaim(-1, 1e12, 5e13, 2)).toBe(2e12);
  });
});
