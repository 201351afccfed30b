import { describe, expect, it } from "vitest";
import { type ContributedVersion, computeScaleTable, isStale } from "../../src/credit/plan-class-scales";
import { expectRel } from "./close";

const NOW = 1_800_000_000;
const DAY = 86400;
const WEEK = 7 * DAY;

/** A fresh report of a well-sampled version whose RAC is `rac` as of now (weight = rac). */
const v = (source: string, app: string, planClass: string, scale: number, rac: number, over: Partial<ContributedVersion> = {}) => ({
  source,
  app,
  planClass,
  pfcN: 500,
  pfcScale: scale,
  expavgCredit: rac,
  expavgTime: NOW,
  reportedAt: NOW,
  ...over,
});

const row = <R extends { name: string }>(rows: readonly R[], name: string) => rows.find((r) => r.name === name);

describe("plan-class scale table (the CreditNew central average)", () => {
  it("averages pfc_scale per plan class and per processor type, weighted by RAC decayed to now", () => {
    const table = computeScaleTable(
      [
        // Project A, app x: CPU scale 1.0 (RAC 100), cuda 0.2 (RAC 300), opencl_nvidia 0.3 (RAC 100).
        v("A", "x", "", 1.0, 100),
        v("A", "x", "cuda", 0.2, 300),
        v("A", "x", "opencl_nvidia", 0.3, 100),
        // Project B, app y: RACs as of one week ago, so each weighs half: CPU 0.9 (50 → 25), cuda 0.1 (200 → 100).
        v("B", "y", "", 0.9, 50, { expavgTime: NOW - WEEK }),
        v("B", "y", "cuda", 0.1, 200, { expavgTime: NOW - WEEK }),
      ],
      NOW,
    );
    // cuda: (0.2·300 + 0.1·100) / (300 + 100) = 70 / 400 = 0.175, from 2 projects.
    expect(row(table.planClasses, "cuda")).toMatchObject({ procType: "nvidia", nprojects: 2, nversions: 2 });
    expectRel(row(table.planClasses, "cuda")!.scale, 0.175);
    expectRel(row(table.planClasses, "cuda")!.recentCredit, 400);
    // opencl_nvidia: one version, 0.3.
    expect(row(table.planClasses, "opencl_nvidia")!.scale).toBe(0.3);
    // CPU (""): (1.0·100 + 0.9·25) / 125 = 122.5 / 125 = 0.98.
    expectRel(row(table.planClasses, "")!.scale, 0.98);
    // NVIDIA: every cuda and opencl_nvidia version: (60 + 10 + 30) / 500 = 0.2, 3 versions, 2 projects.
    expect(row(table.procTypes, "nvidia")).toMatchObject({ nprojects: 2, nversions: 3 });
    expectRel(row(table.procTypes, "nvidia")!.scale, 0.2);
    expectRel(row(table.procTypes, "cpu")!.scale, 0.98);
    expect(table.procTypes.map((r) => r.name)).toEqual(["cpu", "nvidia"]);
  });

  it("counts only apps with both a CPU and a GPU version of at least 100 samples", () => {
    const table = computeScaleTable(
      [
        // GPU-only app: its 0.1 is BOINC's constant, not a comparison; left out.
        v("C", "gpu_only", "cuda", 0.1, 1000),
        // GPU version with 99 samples: the app is not mixed, so its CPU version is left out too.
        v("D", "young", "", 0.5, 100),
        v("D", "young", "cuda", 0.05, 100, { pfcN: 99 }),
        // Exactly 100 samples counts (≥ 100); a version of a mixed app below 100 does not.
        v("E", "m", "", 1.0, 10, { pfcN: 100 }),
        v("E", "m", "ati", 0.4, 10, { pfcN: 100 }),
        v("E", "m", "ati_old", 9, 10, { pfcN: 50 }),
        // No scale yet (pfc_scale 0) or no recent credit: no weight.
        v("E", "m", "cuda_new", 0, 10),
        v("E", "m", "intel_gpu", 0.3, 0),
      ],
      NOW,
    );
    expect(table.planClasses.map((r) => r.name)).toEqual(["", "ati"]);
    expect(row(table.planClasses, "")).toMatchObject({ scale: 1.0, nprojects: 1, nversions: 1 });
    expect(row(table.procTypes, "amd")).toMatchObject({ scale: 0.4, nversions: 1 });
  });

  it("one contributor with an inflated RAC counts for at most 10 × the median contributor's weight", () => {
    // Four honest contributors: CPU 1.0 and cuda 0.2, RAC 100 each. Contributor 9 pushes cuda 5.0
    // with RAC 1e9, split over two of its projects (its weights are summed: 1e9).
    const honest = [1, 2, 3, 4].flatMap((c) => [
      v(`contributor/${c}/p`, "x", "", 1.0, 100),
      v(`contributor/${c}/p`, "x", "cuda", 0.2, 100),
    ]);
    const attacker = ["evil1", "evil2"].flatMap((p) => [
      v(`contributor/9/${p}`, "x", "", 1.0, 1),
      v(`contributor/9/${p}`, "x", "cuda", 5.0, 5e8),
    ]);
    const table = computeScaleTable([...honest, ...attacker], NOW);
    // cuda: contributor weights 100, 100, 100, 100, 1e9; the lower median is 100, so the cap is
    // 10 · 100 = 1000 and contributor 9 weighs 1000: (0.2·400 + 5.0·1000) / 1400 = 5080 / 1400.
    // Uncapped it would be (80 + 5e9) / (400 + 1e9) ≈ 5.0.
    expectRel(row(table.planClasses, "cuda")!.scale, 5080 / 1400);
    // What is shown as the RAC behind the figure stays what was reported.
    expectRel(row(table.planClasses, "cuda")!.recentCredit, 400 + 1e9);
    expect(row(table.planClasses, "cuda")).toMatchObject({ nprojects: 6, nversions: 6 });
  });

  it("the same app name in two projects is two apps", () => {
    // Project F has the CPU version, project G the GPU one: neither app is mixed.
    const table = computeScaleTable([v("F", "same", "", 1, 10), v("G", "same", "cuda", 0.2, 10)], NOW);
    expect(table.planClasses).toEqual([]);
  });

  it("reports not refreshed for 30 days drop out", () => {
    expect(isStale(NOW - 30 * DAY, NOW)).toBe(false);
    expect(isStale(NOW - 30 * DAY - 1, NOW)).toBe(true);
    const table = computeScaleTable(
      [
        v("H", "x", "", 1, 10, { reportedAt: NOW - 31 * DAY }),
        v("H", "x", "cuda_h", 0.2, 10, { reportedAt: NOW - 31 * DAY }),
        v("I", "x", "", 1, 10, { reportedAt: NOW - 29 * DAY }),
        v("I", "x", "cuda_i", 0.3, 10, { reportedAt: NOW - 29 * DAY }),
      ],
      NOW,
    );
    expect(table.planClasses.map((r) => r.name)).toEqual(["", "cuda_i"]);
  });
});
