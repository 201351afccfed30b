/**
 * docs/spec/fair-policy.md#r3: the feeder's rescale for the fair statistics of one app. Mature versions
 * (FAIR.versionSamples samples) get S / L_v; the others keep a seed scale from the plan-class
 * registry, so that a young GPU version is not paid raw peak FLOPs. Version 3
 * (docs/spec/fair-policy.md#r31, #r32): once mature the app takes an anchor, S stays within 3% of it, and its
 * mature versions are sealed.
 */
import { DEFAULT_GPU_SCALE } from "./constants";
import { type ScaleRegistry, registryFactor } from "./gpu-only-factor";
import { isGpuPlanClass } from "./plan-class";
import { FAIR } from "./parameters";
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

/** The app's anchor as stored: S_ref, null until the app first matured (or since a re-base). */
export interface FairAnchor {
  readonly sRef: number | null;
}

export interface FairScales {
  /** The app level S, clamped to the anchor; null when no version is mature (nothing but the seeds changes). */
  readonly level: number | null;
  /** S before the clamp (the operator's alarm compares it with S_ref); null with `level`. */
  readonly rawLevel: number | null;
  readonly basis: FairScaleBasis | null;
  /** The anchor after this rescale. */
  readonly sRef: number | null;
  /** This rescale took the anchor. */
  readonly anchoredNow: boolean;
  /** The clamp changed S: the alarm (docs/spec/fair-policy.md#r31). */
  readonly clamped: boolean;
  /** Every version's new scale: S / L_v when mature, else its seed. */
  readonly scales: ReadonlyMap<number, number>;
  /** The versions that have their own scale after this rescale, and those sealed. */
  readonly ownScale: ReadonlySet<number>;
  readonly sealed: ReadonlySet<number>;
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

function appLevel(mature: readonly FairVersionForScaling[], registry: ScaleRegistry | null) {
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
  return level !== null && Number.isFinite(level) && level > 0 ? { level, basis } : { level: null, basis: null };
}

/** S held within 3% of the anchor (docs/spec/fair-policy.md#r31). */
export function clampToAnchor(level: number, sRef: number): number {
  return Math.min(Math.max(level, sRef / Math.exp(FAIR.anchorDrift)), sRef * Math.exp(FAIR.anchorDrift));
}

export function computeFairScales(
  versions: readonly FairVersionForScaling[],
  registry: ScaleRegistry | null,
  anchor: FairAnchor = { sRef: null },
): FairScales {
  const mature = versions.filter((v) => isMatureVersion(v.fair));
  const { level: raw, basis } = appLevel(mature, registry);
  let level = raw;
  let sRef = anchor.sRef;
  let anchoredNow = false;
  if (raw !== null) {
    if (sRef === null) {
      // Anchor: the first rescale at which the mature versions hold enough samples together.
      if (mature.reduce((n, v) => n + v.fair.n, 0) >= FAIR.anchorSamples) [sRef, anchoredNow] = [raw, true];
    } else {
      level = clampToAnchor(raw, sRef);
    }
  }
  const scales = new Map<number, number>();
  const ownScale = new Set<number>();
  const sealed = new Set<number>();
  for (const v of versions) {
    if (v.fair.ownScale) ownScale.add(v.id);
    if (v.fair.sealed) sealed.add(v.id);
    if (isMatureVersion(v.fair)) {
      // Without a new level a mature version keeps the scale it has.
      if (level !== null) {
        scales.set(v.id, level / v.fair.level!);
        ownScale.add(v.id);
        if (sRef !== null) sealed.add(v.id);
      } else scales.set(v.id, v.fair.scale ?? seedScale(registry, v.planClass));
    } else {
      scales.set(v.id, seedScale(registry, v.planClass));
    }
  }
  return { level, rawLevel: raw, basis, sRef, anchoredNow, clamped: level !== raw, scales, ownScale, sealed };
}
