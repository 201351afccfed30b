import { describe, expect, it } from "vitest";
import { isGpuPlanClass, planClassToProcType } from "../../src/credit/plan-class";

describe("plan_class_to_proc_type: case-sensitive substrings, first match wins (docs/spec/credit.md#plan-class-to-processor-type, docs/spec/edge-cases.md#e26)", () => {
  it.each([
    ["cuda", "nvidia"],
    ["cuda_fermi", "nvidia"],
    ["opencl_nvidia_101", "nvidia"],
    ["ati", "amd"],
    ["opencl_amd", "amd"],
    ["intel_gpu", "intel_gpu"],
    ["opencl_intel_gpu_102", "intel_gpu"],
    ["apple_gpu", "apple_gpu"],
    ["", "cpu"],
    ["mt", "cpu"],
    ["sse2", "cpu"],
  ])("%j is %s", (planClass, procType) => {
    expect(planClassToProcType(planClass)).toBe(procType);
  });

  it("counts 'opencl_amd_cpu' and 'automatic' as AMD GPU (substrings 'amd', 'ati')", () => {
    expect(planClassToProcType("opencl_amd_cpu")).toBe("amd");
    expect(planClassToProcType("automatic")).toBe("amd");
    expect(planClassToProcType("x86_amd64")).toBe("amd");
  });

  it("tests 'cuda' and 'nvidia' before 'ati'", () => {
    expect(planClassToProcType("cuda_ati")).toBe("nvidia");
    expect(planClassToProcType("nvidia_ati")).toBe("nvidia");
  });

  it("tests 'amd' before 'intel_gpu'", () => {
    expect(planClassToProcType("amd_intel_gpu")).toBe("amd");
  });

  it("is case-sensitive: 'CUDA' and 'NVIDIA' are CPU", () => {
    expect(planClassToProcType("CUDA")).toBe("cpu");
    expect(planClassToProcType("NVIDIA")).toBe("cpu");
  });

  it("puts every non-CPU type in the GPU bucket", () => {
    expect(["cuda", "ati", "intel_gpu", "apple_gpu"].map(isGpuPlanClass)).toEqual([true, true, true, true]);
    expect(["", "mt", "sse2"].map(isGpuPlanClass)).toEqual([false, false, false]);
  });
});
