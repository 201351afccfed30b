/**
 * What one account-manager RPC books for one (host, project): the BOINC client reports its
 * lifetime totals, we book the deltas since the previous RPC, each clipped to what the host
 * could possibly have done in the interval. Pure: totals in, booking (and every clip's why) out.
 */
import { COBBLESTONE_SCALE } from "./constants";
import { AM_MAX_CPU_INSTANCES, AM_MAX_FLOPS_PER_CPU, AM_MAX_FLOPS_PER_GPU, AM_MAX_JOBS_PER_RPC } from "./parameters";

/** The lifetime totals a client reports per project (the client's own field names). */
export const TOTALS_FIELDS = ["cpu_ec", "cpu_time", "gpu_ec", "gpu_time", "njobs_success", "njobs_error"] as const;
export type TotalsField = (typeof TOTALS_FIELDS)[number];
export type Totals = Record<TotalsField, number>;

export interface HostResources {
  /** CPU instances the client reports (p_ncpus). */
  readonly ncpus: number;
  readonly nGpus: number;
}

export type ClipRule =
  /** The total went down (the client or its project was reset): the delta counts 0. */
  | "client_reset"
  /** More device time than instances × seconds since the last RPC. */
  | "device_time_over_interval"
  /** More estimated credit than the instances' peak FLOPS over the interval could earn. */
  | "credit_over_peak"
  /** More jobs than one RPC may report. */
  | "jobs_over_limit";

export interface Clip {
  readonly field: TotalsField;
  /** The delta the totals imply (negative after a reset). */
  readonly claimed: number;
  readonly booked: number;
  readonly rule: ClipRule;
  /** The bound that applied (0 for a reset). */
  readonly limit: number;
}

export interface Booking {
  /** The first RPC of this (host, project): only its totals are recorded, nothing is booked. */
  readonly baseline: boolean;
  /** Seconds since the previous RPC of this (host, project); 0 for a baseline. */
  readonly interval: number;
  readonly claimed: Totals;
  readonly booked: Totals;
  readonly clips: readonly Clip[];
}

export interface PreviousTotals {
  readonly totals: Totals;
  readonly time: number;
}

const zero = (): Totals => ({ cpu_ec: 0, cpu_time: 0, gpu_ec: 0, gpu_time: 0, njobs_success: 0, njobs_error: 0 });

/** The most each delta may be over `seconds` on `host`. */
export function deltaLimits(host: HostResources, seconds: number): Totals {
  const cpus = Math.min(host.ncpus, AM_MAX_CPU_INSTANCES);
  return {
    cpu_ec: cpus * AM_MAX_FLOPS_PER_CPU * seconds * COBBLESTONE_SCALE,
    cpu_time: cpus * seconds,
    gpu_ec: host.nGpus * AM_MAX_FLOPS_PER_GPU * seconds * COBBLESTONE_SCALE,
    gpu_time: host.nGpus * seconds,
    njobs_success: AM_MAX_JOBS_PER_RPC,
    njobs_error: AM_MAX_JOBS_PER_RPC,
  };
}

const ruleOf: Record<TotalsField, ClipRule> = {
  cpu_ec: "credit_over_peak",
  gpu_ec: "credit_over_peak",
  cpu_time: "device_time_over_interval",
  gpu_time: "device_time_over_interval",
  njobs_success: "jobs_over_limit",
  njobs_error: "jobs_over_limit",
};

/** Books the deltas from `previous` (null: first RPC) to `current` at `now`. */
export function bookDeltas(previous: PreviousTotals | null, current: Totals, now: number, host: HostResources): Booking {
  if (previous === null) return { baseline: true, interval: 0, claimed: zero(), booked: zero(), clips: [] };
  // The caller rejects an RPC older than the last one; a zero interval allows nothing.
  const interval = Math.max(0, now - previous.time);
  const limits = deltaLimits(host, interval);
  const claimed = zero();
  const booked = zero();
  const clips: Clip[] = [];
  for (const field of TOTALS_FIELDS) {
    const delta = current[field] - previous.totals[field];
    claimed[field] = delta;
    if (delta < 0) {
      clips.push({ field, claimed: delta, booked: 0, rule: "client_reset", limit: 0 });
    } else if (delta > limits[field]) {
      booked[field] = limits[field];
      clips.push({ field, claimed: delta, booked: limits[field], rule: ruleOf[field], limit: limits[field] });
    } else {
      booked[field] = delta;
    }
  }
  return { baseline: false, interval, claimed, booked, clips };
}

/** Estimated credit booked (CPU and GPU together), and claimed before clipping (resets as 0). */
export function bookedCredit(b: Booking): { ec: number; claimedEc: number } {
  return {
    ec: b.booked.cpu_ec + b.booked.gpu_ec,
    claimedEc: Math.max(0, b.claimed.cpu_ec) + Math.max(0, b.claimed.gpu_ec),
  };
}
