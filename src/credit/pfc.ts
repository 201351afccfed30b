import {
  AVG_CPU_FPOPS,
  AV_AVERAGE,
  BENCHMARK_FAILED_FPOPS,
  CONS_VALID_HOST_SCALE,
  COBBLESTONE_SCALE,
  HAV_AVERAGE,
  HOST_SCALE_CAP,
  MIN_ELAPSED_TIME,
  MIN_HOST_SAMPLES,
  MIN_VERSION_SAMPLES,
  PFC_SANE_MAX,
  PFC_SANE_MIN,
} from "./constants";
import { type Average, type AverageVar, updateAverage, updateAverageVar } from "./average";

/** How much a result's peak-FLOP count can be trusted (BOINC's PFC_MODE_*). */
export type PfcMode = "normal" | "approx" | "wu_est" | "invalid";

export interface HostAppVersionStats {
  readonly pfc: Average;
  readonly et: AverageVar;
  readonly turnaround: AverageVar;
  readonly consecutiveValid: number;
}

export interface AppVersionStats {
  readonly pfc: Average;
  readonly pfcScale: number;
}

export interface AppCreditSettings {
  readonly minAvgPfc: number;
  readonly hostScaleCheck: boolean;
}

export interface WorkunitEstimate {
  readonly rscFpopsEst: number;
  readonly rscFpopsBound: number;
}

/** The parts of a result that get_pfc reads. Times are whole seconds. */
export interface ResultMeasurements {
  readonly anonymous: boolean;
  readonly elapsedTime: number;
  readonly cpuTime: number;
  readonly flopsEstimate: number;
  readonly sentTime: number;
  readonly receivedTime: number;
  readonly runtimeOutlier: boolean;
}

/** The host_app_version samples one result contributes (absent = not a sample). */
export interface HostAppVersionSamples {
  readonly pfc?: number;
  readonly et?: number;
  readonly turnaround?: number;
}

export interface PfcResult {
  /** Scaled peak-FLOP count claimed by the result (before any cap). */
  readonly pfc: number;
  readonly mode: PfcMode;
  /** elapsed_time × flops_estimate, after BOINC's substitutions. */
  readonly rawPfc: number;
  /** The app version's pfc_scale used (0 = none). */
  readonly versionScale: number;
  /** The host scale used (0 = none); for anonymous platform, min_avg_pfc / hav.pfc.avg. */
  readonly hostScale: number;
  /** The outlier flag after get_pfc (set by a missing or failed benchmark). */
  readonly runtimeOutlier: boolean;
  readonly havSamples: HostAppVersionSamples;
  readonly hav: HostAppVersionStats;
  /** raw PFC / rsc_fpops_est for the app version's pfc average, when it is a sample. */
  readonly avPfcSample?: number;
}

/** wu_estimated_pfc: rsc_fpops_est × min_avg_pfc (factor 1 when min_avg_pfc is 0). */
export function wuEstimatedPfc(wu: WorkunitEstimate, app: AppCreditSettings): number {
  return app.minAvgPfc === 0 ? wu.rscFpopsEst : wu.rscFpopsEst * app.minAvgPfc;
}

export function isPfcSane(ratio: number): boolean {
  return ratio >= PFC_SANE_MIN && ratio <= PFC_SANE_MAX;
}

/** Credit of a PFC as BOINC's `a*COBBLESTONE_SCALE` macro expands it: (a·200)/86400e9. */
export function pfcToCreditExpanded(pfc: number): number {
  return (pfc * 200) / 86400e9;
}

/** Credit of a PFC as BOINC's compound `x *= COBBLESTONE_SCALE` computes it. */
export function pfcToCredit(pfc: number): number {
  return pfc * COBBLESTONE_SCALE;
}

/**
 * BOINC's get_pfc for a result whose host_app_version exists (ours always does: docs/spec/credit.md#missing-host_app_version).
 * `version` is null for an anonymous-platform result (it has no app_version row).
 * Host scaling reads the host_app_version as it was before this result's own samples.
 */
export function getPfc(
  r: ResultMeasurements,
  wu: WorkunitEstimate,
  app: AppCreditSettings,
  version: AppVersionStats | null,
  hav: HostAppVersionStats,
): PfcResult {
  const elapsed = r.elapsedTime < MIN_ELAPSED_TIME ? r.cpuTime : r.elapsedTime;
  const benchmarkMissing = r.flopsEstimate <= 0 || r.flopsEstimate === BENCHMARK_FAILED_FPOPS;
  const flops = benchmarkMissing ? AVG_CPU_FPOPS : r.flopsEstimate;
  const runtimeOutlier = r.runtimeOutlier || benchmarkMissing;
  // elapsed × flops can overflow (1e12 s × 1e308 FLOPS); BOINC would carry inf into NaN (inf × a
  // scale of 0). Saturating at the largest double keeps every product finite: such a claim is
  // then capped at rsc_fpops_bound like any claim above it, and is no statistics sample.
  const rawPfc = Math.min(elapsed * flops, Number.MAX_VALUE);
  const ratio = rawPfc / wu.rscFpopsEst;

  let pfc: number;
  let mode: PfcMode = "approx";
  let hostScale = 0;
  let versionScale = 0;
  let avPfcSample: number | undefined;

  if (r.anonymous || version === null) {
    const scaled =
      hav.pfc.n >= MIN_HOST_SAMPLES && hav.pfc.avg > 0 && !(app.hostScaleCheck && hav.consecutiveValid < CONS_VALID_HOST_SCALE);
    if (scaled) {
      hostScale = app.minAvgPfc / hav.pfc.avg; // no cap for anonymous platform (docs/spec/edge-cases.md#e4)
      pfc = rawPfc * hostScale;
    } else {
      pfc = wuEstimatedPfc(wu, app);
    }
  } else {
    const scaled =
      !(app.hostScaleCheck && hav.consecutiveValid < CONS_VALID_HOST_SCALE) &&
      hav.pfc.n >= MIN_HOST_SAMPLES &&
      version.pfc.n >= MIN_VERSION_SAMPLES &&
      hav.pfc.avg > 0;
    if (scaled) hostScale = Math.min(version.pfc.avg / hav.pfc.avg, HOST_SCALE_CAP);
    pfc = rawPfc;
    if (version.pfcScale !== 0) {
      versionScale = version.pfcScale;
      pfc *= version.pfcScale;
      if (hostScale !== 0) {
        pfc *= hostScale;
        mode = "normal";
      }
    } else if (hostScale !== 0) {
      pfc *= hostScale;
    }
    if (!runtimeOutlier && isPfcSane(ratio)) avPfcSample = ratio;
  }

  const havSamples: HostAppVersionSamples = runtimeOutlier
    ? {}
    : {
        ...(isPfcSane(ratio) ? { pfc: ratio } : {}),
        et: elapsed / wu.rscFpopsEst,
        turnaround: r.receivedTime - r.sentTime,
      };
  return {
    pfc,
    mode,
    rawPfc,
    versionScale,
    hostScale,
    runtimeOutlier,
    havSamples,
    hav: applyHostAppVersionSamples(hav, havSamples),
    ...(avPfcSample === undefined ? {} : { avPfcSample }),
  };
}

/** The host_app_version after one result's samples (AVERAGE / AVERAGE_VAR with HAV params). */
export function applyHostAppVersionSamples(hav: HostAppVersionStats, s: HostAppVersionSamples): HostAppVersionStats {
  return {
    pfc: s.pfc === undefined ? hav.pfc : updateAverage(hav.pfc, s.pfc, HAV_AVERAGE),
    et: s.et === undefined ? hav.et : updateAverageVar(hav.et, s.et, HAV_AVERAGE),
    turnaround: s.turnaround === undefined ? hav.turnaround : updateAverageVar(hav.turnaround, s.turnaround, HAV_AVERAGE),
    consecutiveValid: hav.consecutiveValid,
  };
}

/** The app version's pfc average after this pass's samples, in order (AV params). */
export function applyVersionPfcSamples(pfc: Average, samples: readonly number[]): Average {
  return samples.reduce((acc, x) => updateAverage(acc, x, AV_AVERAGE), pfc);
}
