/**
 * Cobblestone's own parameters of its pure math, beside BOINC's constants (constants.ts): the
 * account-manager sanity limits, the plan-class registry, the fair policy and the
 * project-neutrality index. Operational knobs (retention, purges, clock skew) are in src/config.ts.
 */
import { SECONDS_PER_DAY } from "./constants";

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
  /** Version 3: the app takes its anchor S_ref once its mature versions hold this many level samples together. */
  anchorSamples: 1000,
  /** Version 3: after the anchor, S stays within S_ref ÷ e^this … S_ref × e^this (3%). */
  anchorDrift: Math.log(1.03),
} as const;

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
