/**
 * docs/spec/fair-policy.md#r3: the feeder's rescale for the fair statistics of one app. Mature versions
 * (FAIR.versionSamples samples) get S / L_v; the others keep a seed scale from the plan-class
 * registry, so that a young GPU version is not paid raw peak FLOPs.
 */
import { DEFAULT_GPU_SCALE } from "./constants";
import { type ScaleRegistry, registryFactor } from "./gpu-only-factor";
import { isGpuPlanClass } from "./plan-class";
import { type FairVersionState, isMatureVersion } from "./fair-state";

export interface FairVersionForScaling {
  readonly id: number;
  readonly planClass: string;
  readonly fair: FairVersionState;
}

/** The scale a version uses before it is mature, and the default (no registry: 1 CPU, 0.1 GPU). */
export function seedScale(registry: ScaleRegistry | null, planClass: string): number {
  if (!isGpuPlanClass(planClass)) {
    const own = registry?.planClasses.get(planClass);
    return own !== undefined && own > 0 ? own : 1;
  }
  return registryFactor(registry, planClass).factor;
}

export function defaultSeedScale(planClass: string): number {
  return isGpuPlanClass(planClass) ? DEFAULT_GPU_SCALE : 1;
}

export type FairScaleBasis = "min_of_cpu_and_gpu" | "cpu_average" | "gpu_only";

export interface FairScales {
  /** The app level S; null when no version is mature (nothing but the seeds changes). */
  readonly level: number | null;
  readonly basis: FairScaleBasis | null;
  /** Every version's new scale: S / L_v when mature, else its seed. */
  readonly scales: ReadonlyMap<number, number>;
}

function groupLevel(versions: readonly FairVersionForScaling[]): number | null {
  let sum = 0;
  let n = 0;
  for (const v of versions) {
    sum += v.fair.level! * v.fair.n;
    n += v.fair.n;
  }
  return n > 0 ? sum / n : null;
}

export function computeFairScales(versions: readonly FairVersionForScaling[], registry: ScaleRegistry | null): FairScales {
  const mature = versions.filter((v) => isMatureVersion(v.fair));
  const gpus = mature.filter((v) => isGpuPlanClass(v.planClass));
  const cpu = groupLevel(mature.filter((v) => !isGpuPlanClass(v.planClass)));
  const gpu = groupLevel(gpus);
  let level: number | null = null;
  let basis: FairScaleBasis | null = null;
  if (cpu !== null && gpu !== null) [level, basis] = [Math.min(cpu, gpu), "min_of_cpu_and_gpu"];
  else if (cpu !== null) [level, basis] = [cpu, "cpu_average"];
  else if (gpu !== null) {
    // A GPU-only app: the registry's scale of its GPU plan classes, weighted by samples.
    let f = 0;
    let n = 0;
    for (const v of gpus) {
      f += seedScale(registry, v.planClass) * v.fair.n;
      n += v.fair.n;
    }
    [level, basis] = [gpu * (f / n), "gpu_only"];
  }
  if (level !== null && !(Number.isFinite(level) && level > 0)) [level, basis] = [null, null];
  const scales = new Map<number, number>();
  for (const v of versions) {
    if (isMatureVersion(v.fair)) {
      // Without a new level a mature version keeps the scale it has.
      if (level !== null) scales.set(v.id, level / v.fair.level!);
      else scales.set(v.id, v.fair.scale ?? seedScale(registry, v.planClass));
    } else {
      scales.set(v.id, seedScale(registry, v.planClass));
    }
  }
  return { level, basis, scales };
}
