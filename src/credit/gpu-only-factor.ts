/**
 * The factor a GPU-only app's GPU average is multiplied by in rescale (BOINC: the constant
 * DEFAULT_GPU_SCALE = 0.1). With gpu_only_scale "cross-project" it comes from the plan-class
 * registry: the plan class's factor, else its processor type's, else BOINC's 0.1.
 */
import { DEFAULT_GPU_SCALE, MIN_VERSION_SAMPLES } from "./constants";
import { type ProcType, isGpuPlanClass, planClassToProcType } from "./plan-class";
import type { VersionForScaling } from "./version-scales";

/** The registry's scales, by plan class and by processor type (one published version). */
export interface ScaleRegistry {
  readonly version: number;
  readonly planClasses: ReadonlyMap<string, number>;
  readonly procTypes: ReadonlyMap<ProcType, number>;
}

export type FactorSource = "plan_class" | "proc_type" | "boinc_default";

export interface PlanClassFactor {
  readonly planClass: string;
  readonly factor: number;
  readonly source: FactorSource;
}

/** The fallback chain for one plan class. A missing registry (none published yet) gives 0.1. */
export function registryFactor(registry: ScaleRegistry | null, planClass: string): PlanClassFactor {
  const byPlanClass = registry?.planClasses.get(planClass);
  if (byPlanClass !== undefined && byPlanClass > 0) return { planClass, factor: byPlanClass, source: "plan_class" };
  const byProcType = registry?.procTypes.get(planClassToProcType(planClass));
  if (byProcType !== undefined && byProcType > 0) return { planClass, factor: byProcType, source: "proc_type" };
  return { planClass, factor: DEFAULT_GPU_SCALE, source: "boinc_default" };
}

export interface AppGpuOnlyFactor {
  /** Replaces DEFAULT_GPU_SCALE for this app: min_avg_pfc = factor × the GPU average. */
  readonly factor: number;
  readonly planClasses: readonly PlanClassFactor[];
}

/**
 * One factor per app, so that every version of the app still grants the same credit for the
 * same job (BOINC normalises all versions to one target). Its GPU versions above threshold
 * (those that make BOINC's GPU average) weigh their plan class's factor by their sample
 * count, as that average weighs their pfc_avg.
 */
export function appGpuOnlyFactor(inService: readonly VersionForScaling[], registry: ScaleRegistry | null): AppGpuOnlyFactor {
  const counted = inService.filter((v) => isGpuPlanClass(v.planClass) && v.pfc.n > MIN_VERSION_SAMPLES);
  const planClasses = [...new Set(counted.map((v) => v.planClass))].sort().map((pc) => registryFactor(registry, pc));
  const factorOf = new Map(planClasses.map((p) => [p.planClass, p.factor]));
  const distinct = new Set(planClasses.map((p) => p.factor));
  if (distinct.size <= 1) return { factor: [...distinct][0] ?? DEFAULT_GPU_SCALE, planClasses };
  let weighted = 0;
  let n = 0;
  for (const v of counted) {
    weighted += factorOf.get(v.planClass)! * v.pfc.n;
    n += v.pfc.n;
  }
  return { factor: weighted / n, planClasses };
}
