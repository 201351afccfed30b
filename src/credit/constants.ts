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

/**
 * Account-manager accounting: the sanity limits applied to the deltas a BOINC client's
 * lifetime totals imply (the limits Science United checks an RPC against).
 */
/** Peak FLOPS one CPU core may be credited with. */
export const AM_MAX_FLOPS_PER_CPU = 100e9;
/** Peak FLOPS one GPU may be credited with. */
export const AM_MAX_FLOPS_PER_GPU = 100e12;
/** CPU instances beyond this are not believed. */
export const AM_MAX_CPU_INSTANCES = 256;
/** Jobs (successes, and errors, each) one RPC may report per project. */
export const AM_MAX_JOBS_PER_RPC = 5000;
/** Reconciliation compares granted with estimated credit over this many UTC days. */
export const RECONCILE_WINDOW_DAYS = 30;

/** How a GPU-only app is scaled (an app setting): BOINC's DEFAULT_GPU_SCALE, or the registry's factor. */
export const GPU_ONLY_SCALES = ["boinc", "cross-project"] as const;
/** A contribution to the plan-class registry not refreshed for this long drops out. */
export const CENTRAL_STALE_AFTER = 30 * SECONDS_PER_DAY;
/**
 * In the central plan-class average, one contributor's summed weight counts for at most this
 * many times the (lower) median contributor's weight: an inflated RAC cannot outweigh the rest.
 */
export const CENTRAL_CONTRIBUTOR_WEIGHT_CAP = 10;

/** How an app's claims are paid (an app setting): BOINC's CreditNew, or the fair variant (docs/spec/fair-policy.md). */
export const CREDIT_POLICIES = ["boinc", "fair"] as const;
export type CreditPolicy = (typeof CREDIT_POLICIES)[number];

/** The fair policy's parameters (docs/fair-credit.md explains each). */
export const FAIR = {
  /** Host samples before it is normalised; its level starts as the median of these. */
  hostSamples: 10,
  /** Host level after that: a running median in log space, moving this much per result. */
  hostStep: 0.02,
  /** A version's level starts as the median of its first this many samples. */
  versionBuffer: 20,
  /** ... then a running mean with weight max(1/n, this). */
  versionWeight: 0.002,
  /** Version samples before its own scale replaces the seed scale. */
  versionSamples: 100,
  /** Once a version has its level (from its versionBuffer-th sample), it ignores samples more than 2× from it (log). */
  band: Math.log(2),
  quantileHigh: 0.98,
  quantileLow: 0.02,
  /** Step of the z quantiles; doubled for a version's first quantileWarmup samples. */
  quantileStep: 0.05,
  quantileWarmup: 200,
  /** z beyond a quantile by this (log) is an outlier. */
  margin: Math.log(1.25),
  initialHigh: Math.log(3),
  initialLow: Math.log(1 / 3),
  /** This many outliers in a row on one side: the host is re-learned. */
  outlierRun: 5,
  /** Error/abort rate: EMA weight and the bad-standing threshold. */
  errorAlpha: 0.05,
  errorMax: 0.1,
  /**
   * The paid share w_v of a job's z: 0 while the version's z band (tHi − tLo) is at most
   * zBandNoise (noise around rsc_fpops_est), 1 from zBandSizes (est hides job sizes), linear between.
   */
  zBandNoise: Math.log(2),
  zBandSizes: Math.log(4),
  /** EMA steps of "this sample's z is above tHi": per host × version, and per version. */
  highShareHostStep: 0.02,
  highShareVersionStep: 0.002,
  /** A version's share starts where its 98% quantile puts it. */
  highShareStart: 1 - 0.98,
  /** The gate: a host feeds its version's z quantiles only while its share ≤ max(gateFactor × version's, version's + gateMargin). */
  gateFactor: 3,
  gateMargin: 0.1,
} as const;
/** The fairness report compares the two policies' credit over this many days. */
export const FAIRNESS_WINDOW_DAYS = 30;

/** Clock skew we tolerate on a client-given `now`. */
export const MAX_CLOCK_SKEW_SECONDS = 300;

/**
 * Retention (src/jobs/retention.ts). Decided results and credited workunits: per project,
 * this default. Audit rows and account-manager RPC rows: deployment-wide (env overrides).
 */
export const DEFAULT_RESULT_RETENTION_DAYS = 30;
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;
export const DEFAULT_AM_RPC_RETENTION_DAYS = 90;
/**
 * Daily history buckets are kept this many days (per project); whole months older than that
 * roll up into monthly buckets (docs/storage.md). The floor keeps the 30 days the account-manager
 * reconciliation reads (RECONCILE_WINDOW_DAYS) as days.
 */
export const DEFAULT_DAILY_HISTORY_DAYS = 730;
export const MIN_DAILY_HISTORY_DAYS = 31;
export const MAX_DAILY_HISTORY_DAYS = 36_600;
/** Rows one purge statement deletes, and statements one run may spend per table and project. */
export const PURGE_CHUNK_ROWS = 5000;
export const PURGE_MAX_CHUNKS = 40;

/**
 * The project-neutrality index (docs/central-registry.md): each host × app version keeps its
 * credit, device-seconds and valid results of the current and the previous period; the job
 * reads them as a sliding window of one period.
 */
export const NEUTRALITY = {
  periodSeconds: 30 * SECONDS_PER_DAY,
  /** A host × project cell counts with at least this much in the window. */
  minResults: 10,
  minDeviceHours: 5,
  /** A project is fitted when at least this many hosts connect it to the other fitted projects. */
  minConnectingHosts: 20,
  /** Bootstrap resamples of the hosts, and the interval they give (5th to 95th percentile). */
  bootstrapSamples: 200,
  intervalLow: 0.05,
  intervalHigh: 0.95,
  /** Median polish sweeps: stop when no effect moves more than this, or after this many sweeps. */
  polishTolerance: 1e-9,
  polishMaxSweeps: 100,
} as const;
