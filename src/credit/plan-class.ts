/** BOINC's processor types, as plan_class_to_proc_type derives them. */
export type ProcType = "cpu" | "nvidia" | "amd" | "intel_gpu" | "apple_gpu";

/**
 * Case-sensitive substring tests in BOINC's order; the first match wins. So "opencl_amd_cpu"
 * and "automatic" count as AMD GPU, as they do in BOINC (docs/spec/edge-cases.md#e26).
 */
export function planClassToProcType(planClass: string): ProcType {
  if (planClass.includes("cuda") || planClass.includes("nvidia")) return "nvidia";
  if (planClass.includes("ati") || planClass.includes("amd")) return "amd";
  if (planClass.includes("intel_gpu")) return "intel_gpu";
  if (planClass.includes("apple_gpu")) return "apple_gpu";
  return "cpu";
}

export function isGpuPlanClass(planClass: string): boolean {
  return planClassToProcType(planClass) !== "cpu";
}
