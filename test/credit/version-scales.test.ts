import { describe, expect, it } from "vitest";
import { type VersionForScaling, computeVersionScales, versionsInService } from "../../src/credit/version-scales";

let nextId = 1;
const v = (planClass: string, n: number, avg: number, over: Partial<VersionForScaling> = {}): VersionForScaling => ({
  id: nextId++,
  platform: "x86_64-pc-linux-gnu",
  planClass,
  versionNum: 100,
  deprecated: false,
  pfc: { n, avg },
  ...over,
});

describe("update_av_scales decision (docs/spec/credit.md#rescale, docs/spec/edge-cases.md#e6, docs/spec/edge-cases.md#e7)", () => {
  it("one CPU version above threshold and no GPU version: nothing changes (docs/spec/edge-cases.md#e6)", () => {
    expect(computeVersionScales([v("", 500, 2)])).toBeNull();
  });

  it("nothing above threshold: nothing changes", () => {
    expect(computeVersionScales([v("", 100, 2), v("cuda", 100, 3)])).toBeNull();
  });

  it("two CPU versions above threshold: target = n-weighted CPU average", () => {
    // (200·1 + 600·3) / (200 + 600) = 2000/800 = 2.5
    const a = v("", 200, 1, { platform: "windows_x86_64" });
    const b = v("", 600, 3);
    expect(computeVersionScales([a, b])).toEqual({ minAvgPfc: 2.5, basis: "cpu_average", scaledVersionIds: [a.id, b.id] });
  });

  it("CPU and GPU above threshold: target = min(CPU avg, GPU avg)", () => {
    const cpu = v("", 200, 1.5);
    const gpu = v("cuda", 300, 0.5);
    expect(computeVersionScales([cpu, gpu])).toEqual({
      minAvgPfc: 0.5,
      basis: "min_of_cpu_and_gpu",
      scaledVersionIds: [cpu.id, gpu.id],
    });
    const gpu2 = v("cuda", 300, 4);
    expect(computeVersionScales([cpu, gpu2])?.minAvgPfc).toBe(1.5);
  });

  it("GPU only (one version is enough): target = 0.1 × GPU average", () => {
    // (150·2 + 250·4) / 400 = 1300/400 = 3.25; × 0.1
    const g1 = v("cuda", 150, 2);
    const g2 = v("opencl_amd", 250, 4);
    expect(computeVersionScales([g1])?.minAvgPfc).toBe(0.1 * 2);
    const both = computeVersionScales([g1, g2]);
    expect(both?.basis).toBe("gpu_only");
    expect(both?.minAvgPfc).toBe(0.1 * 3.25);
  });

  it("one CPU version above threshold with a GPU version: mixed (min) case", () => {
    const cpu = v("", 101, 2);
    const gpu = v("ati", 101, 3);
    expect(computeVersionScales([cpu, gpu])?.basis).toBe("min_of_cpu_and_gpu");
  });
});

describe("update_av_scales thresholds (docs/spec/edge-cases.md#e5): n > 100 for the averages, n ≥ 100 to be scaled", () => {
  it("a version with exactly 100 samples is left out of the average but is scaled", () => {
    // averaged: (101·2 + 101·4) / 202 = 3; the n=100 version (avg 1000) doesn't count
    const a = v("", 101, 2);
    const b = v("", 101, 4);
    const c = v("mt", 100, 1000);
    const s = computeVersionScales([a, b, c]);
    expect(s?.minAvgPfc).toBe(3);
    expect(s?.scaledVersionIds).toEqual([a.id, b.id, c.id]);
  });

  it("a version with 99 samples is not scaled", () => {
    const a = v("", 101, 2);
    const b = v("", 101, 4);
    const d = v("mt", 99, 1);
    expect(computeVersionScales([a, b, d])?.scaledVersionIds).toEqual([a.id, b.id]);
  });

  it("two CPU versions, one with exactly 100 samples: only one above threshold, nothing changes", () => {
    expect(computeVersionScales([v("", 101, 2), v("mt", 100, 4)])).toBeNull();
  });
});

describe("versions in service (docs/spec/credit.md#rescale)", () => {
  it("excludes deprecated versions", () => {
    const a = v("", 500, 1);
    const b = v("mt", 500, 1, { deprecated: true });
    expect(versionsInService([a, b])).toEqual([a]);
  });

  it("keeps only the highest version_num per (platform, plan_class)", () => {
    const old = v("", 500, 1, { versionNum: 100 });
    const cur = v("", 500, 1, { versionNum: 102 });
    const mid = v("", 500, 1, { versionNum: 101 });
    const cuda = v("cuda", 500, 1, { versionNum: 90 });
    const win = v("", 500, 1, { versionNum: 90, platform: "windows_x86_64" });
    expect(versionsInService([old, cur, mid, cuda, win])).toEqual([cur, cuda, win]);
  });

  it("keeps the first listed on a version_num tie", () => {
    const a = v("", 500, 1, { versionNum: 100 });
    const b = v("", 600, 2, { versionNum: 100 });
    expect(versionsInService([a, b])).toEqual([a]);
  });

  it("a deprecated newer version does not hide the older one", () => {
    const old = v("", 500, 1, { versionNum: 100 });
    const dep = v("", 500, 1, { versionNum: 101, deprecated: true });
    expect(versionsInService([old, dep])).toEqual([old]);
  });

  it("an old version with many samples no longer counts once superseded", () => {
    // Without the filter the two CPU versions would give a CPU average (2 versions > 100)
    const old = v("", 5000, 1, { versionNum: 100 });
    const cur = v("", 200, 2, { versionNum: 101 });
    expect(computeVersionScales(versionsInService([old, cur]))).toBeNull();
  });
});
