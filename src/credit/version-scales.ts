import type { Average } from "./average";
import { DEFAULT_GPU_SCALE, MIN_VERSION_SAMPLES } from "./constants";
import { isGpuPlanClass } from "./plan-class";

export interface VersionForScaling {
  readonly id: number;
  readonly platform: string;
  readonly planClass: string;
  readonly versionNum: number;
  readonly deprecated: boolean;
  readonly pfc: Average;
}

/**
 * The versions BOINC's feeder would hold in shared memory: not deprecated, and for each
 * (platform, plan_class) only the highest version_num (the first listed wins a tie).
 */
export function versionsInService<V extends VersionForScaling>(versions: readonly V[]): V[] {
  const best = new Map<string, V>();
  for (const v of versions) {
    if (v.deprecated) continue;
    const key = JSON.stringify([v.platform, v.planClass]);
    const held = best.get(key);
    if (held === undefined || v.versionNum > held.versionNum) best.set(key, v);
  }
  return [...best.values()];
}

interface Bucket {
  versionsAboveThreshold: number;
  pfcSum: number;
  pfcN: number;
}

function bucketOf(versions: readonly VersionForScaling[]): Bucket {
  const b: Bucket = { versionsAboveThreshold: 0, pfcSum: 0, pfcN: 0 };
  for (const v of versions) {
    // RSC_INFO counts versions with strictly more than MIN_VERSION_SAMPLES (docs/spec/edge-cases.md#e5).
    if (v.pfc.n > MIN_VERSION_SAMPLES) {
      b.versionsAboveThreshold++;
      b.pfcSum += v.pfc.avg * v.pfc.n;
      b.pfcN += v.pfc.n;
    }
  }
  return b;
}

export type ScaleBasis = "min_of_cpu_and_gpu" | "cpu_average" | "gpu_only";

export interface VersionScales {
  /** The app's new min_avg_pfc: the PFC average everything is normalised to. */
  readonly minAvgPfc: number;
  readonly basis: ScaleBasis;
  /** Versions in service with at least MIN_VERSION_SAMPLES samples get pfc_scale = target / pfc_avg. */
  readonly scaledVersionIds: readonly number[];
}

/**
 * BOINC's update_av_scales for one app, over the versions in service. Returns null when BOINC
 * changes nothing (e.g. a single CPU version above threshold and no GPU one: docs/spec/edge-cases.md#e6).
 * `gpuOnlyFactor` replaces BOINC's 0.1 for a GPU-only app (gpu_only_scale "cross-project").
 */
export function computeVersionScales(
  inService: readonly VersionForScaling[],
  gpuOnlyFactor: number = DEFAULT_GPU_SCALE,
): VersionScales | null {
  const cpu = bucketOf(inService.filter((v) => !isGpuPlanClass(v.planClass)));
  const gpu = bucketOf(inService.filter((v) => isGpuPlanClass(v.planClass)));
  const avg = (b: Bucket) => b.pfcSum / b.pfcN;
  let target: number;
  let basis: ScaleBasis;
  if (cpu.versionsAboveThreshold >= 1 && gpu.versionsAboveThreshold >= 1) {
    target = Math.min(avg(cpu), avg(gpu));
    basis = "min_of_cpu_and_gpu";
  } else if (cpu.versionsAboveThreshold >= 2) {
    target = avg(cpu);
    basis = "cpu_average";
  } else if (gpu.versionsAboveThreshold >= 1) {
    target = gpuOnlyFactor * avg(gpu);
    basis = "gpu_only";
  } else {
    return null;
  }
  const scaledVersionIds = inService.filter((v) => v.pfc.n >= MIN_VERSION_SAMPLES).map((v) => v.id);
  return { minAvgPfc: target, basis, scaledVersionIds };
}
