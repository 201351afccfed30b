/**
 * BOINC's credit constants, in one place (docs/spec/credit.md#constants).
 * Names follow BOINC's so that project admins recognise them.
 */

/** Credit per FLOP: 200 credits per day of a 1 GFLOPS device. */
export const COBBLESTONE_SCALE = 200 / 86400e9;
export const SECONDS_PER_DAY = 86400;
/** Half-life of every recent average credit (RAC). */
export const CREDIT_HALF_LIFE = SECONDS_PER_DAY * 7;
/** update_average switches to its first-order form when 1 - weight is at most this. */
export const RAC_TAYLOR_THRESHOLD = 1e-6;

/** Replaces a flops_estimate that is <= 0 or exactly the "benchmark failed" sentinel. */
export const AVG_CPU_FPOPS = 4.3e9;
/** A client whose benchmark failed reports exactly this many FLOPS. */
export const BENCHMARK_FAILED_FPOPS = 1e9;
/** An elapsed time below this is replaced by the CPU time. */
export const MIN_ELAPSED_TIME = 1e-6;

export const MIN_HOST_SAMPLES = 10;
export const MIN_VERSION_SAMPLES = 100;

export interface AverageParams {
  /** After this many samples (counting the new one), switch to the exponential average. */
  readonly thresh: number;
  /** Weight of a new sample in the exponential phase. */
  readonly weight: number;
  /** Samples above avg * limit are truncated. */
  readonly limit: number;
}
/** AVERAGE parameters of host_app_version pfc, et and turnaround. */
export const HAV_AVERAGE: AverageParams = { thresh: 20, weight: 0.01, limit: 10 };
/** AVERAGE parameters of app_version pfc. */
export const AV_AVERAGE: AverageParams = { thresh: 100, weight: 0.001, limit: 10 };

/** Scale of GPU-only apps relative to their GPU average. */
export const DEFAULT_GPU_SCALE = 0.1;
/** raw PFC / rsc_fpops_est outside [min, max] is not a statistics sample. */
export const PFC_SANE_MIN = 1e-4;
export const PFC_SANE_MAX = 1e4;
/** Upper bound of a host scale; there is no lower bound. */
export const HOST_SCALE_CAP = 10;
/** pegged_average weighs each value by 1 / (this * anchor + |anchor - value|). */
export const PEGGED_PROXIMITY = 0.1;
/** Host scaling needs this many consecutive valid results when the app asks for the check. */
export const CONS_VALID_HOST_SCALE = 10;

/** The validator's default cap: one TeraFLOP-year. 0 disables it. */
export const DEFAULT_MAX_GRANTED_CREDIT = 200 * 1000 * 365;
/** min_avg_pfc of a new app (BOINC's schema default). */
export const DEFAULT_MIN_AVG_PFC = 1;

/** Anonymous-platform app_version_id codes, by resource. */
const ANONYMOUS_PLATFORM = {
  cpu: -2,
  nvidia: -3,
  amd: -4,
  intel_gpu: -5,
  apple_gpu: -6,
} as const;
export const MIN_ANONYMOUS_PLATFORM_ID = ANONYMOUS_PLATFORM.apple_gpu;
export const MAX_ANONYMOUS_PLATFORM_ID = ANONYMOUS_PLATFORM.cpu;
