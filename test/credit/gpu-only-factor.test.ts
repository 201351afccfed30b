import { describe, expect, it } from "vitest";
import { DEFAULT_GPU_SCALE } from "../../src/credit/constants";
import { type ScaleRegistry, appGpuOnlyFactor, registryFactor } from "../../src/credit/gpu-only-factor";
import { type VersionForScaling, computeVersionScales } from "../../src/credit/version-scales";
import { expectRel } from "./close";

const registry: ScaleRegistry = {
  version: 1,
  planClasses: new Map([
    ["cuda", 0.25],
    ["opencl_nvidia", 0.15],
    ["", 1.0],
  ]),
  procTypes: new Map([
    ["nvidia", 0.2],
    ["cpu", 1.0],
  ]),
};

let nextId = 1;
const gpu = (planClass: string, n: number, avg: number): VersionForScaling => ({
  id: nextId++,
  platform: "windows_x86_64",
  planClass,
  versionNum: 1,
  deprecated: false,
  pfc: { n, avg },
});

describe("the cross-project fallback chain", () => {
  it("the plan class's factor, else its processor type's, else BOINC's 0.1", () => {
    expect(registryFactor(registry, "cuda")).toEqual({ planClass: "cuda", factor: 0.25, source: "plan_class" });
    // cuda_fermi is NVIDIA (plan_class_to_proc_type), which the registry has.
    expect(registryFactor(registry, "cuda_fermi")).toEqual({ planClass: "cuda_fermi", factor: 0.2, source: "proc_type" });
    // ati_14 is AMD, which it has not.
    expect(registryFactor(registry, "ati_14")).toEqual({ planClass: "ati_14", factor: DEFAULT_GPU_SCALE, source: "boinc_default" });
    // Nothing published yet.
    expect(registryFactor(null, "cuda").source).toBe("boinc_default");
  });

  it("an app's factor is its GPU versions' factors weighted by samples, counted as BOINC's GPU average counts", () => {
    // cuda (0.25) with 300 samples and opencl_nvidia (0.15) with 100: (0.25·300 + 0.15·100) / 400 = 0.225.
    // The version with 100 samples is not above BOINC's threshold (> 100): it has 101 here.
    const f = appGpuOnlyFactor([gpu("cuda", 300, 2), gpu("opencl_nvidia", 101, 3), gpu("cuda_fermi", 50, 9)], registry);
    expectRel(f.factor, (0.25 * 300 + 0.15 * 101) / 401);
    // cuda_fermi has 50 samples: not in the GPU average, so not in the factor.
    expect(f.planClasses.map((p) => p.planClass)).toEqual(["cuda", "opencl_nvidia"]);
  });

  it("one plan class gives its factor exactly; no registry gives exactly BOINC's 0.1", () => {
    expect(appGpuOnlyFactor([gpu("cuda", 300, 2), gpu("cuda", 200, 3)], registry).factor).toBe(0.25);
    expect(appGpuOnlyFactor([gpu("cuda", 300, 2), gpu("ati", 200, 3)], null).factor).toBe(DEFAULT_GPU_SCALE);
  });

  it("rescale of a GPU-only app: min_avg_pfc = factor × the GPU average (BOINC: 0.1 × it)", () => {
    const versions = [gpu("cuda", 200, 2)];
    expect(computeVersionScales(versions)).toMatchObject({ basis: "gpu_only", minAvgPfc: 0.2 });
    expect(computeVersionScales(versions, 0.25)).toMatchObject({ basis: "gpu_only", minAvgPfc: 0.5 });
  });
});
