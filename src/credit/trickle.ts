import { SECONDS_PER_DAY } from "./constants";
import { pfcToCreditExpanded } from "./pfc";
import type { Grant } from "./pass";

/**
 * Trickle credit as BOINC's sched/trickle_credit.cpp grants it: a long job's host reports the
 * seconds it ran since its last message, and is paid runtime × its benchmark FLOPS, with the
 * runtime capped and the FLOPS bounded by the project's host percentiles. Pure: the caller
 * loads the host, app and percentiles, and writes the grant through the pass's ledger writes.
 */

/** BOINC's fpops_percentile over the hosts with expavg_credit > this. */
export const PERCENTILE_MIN_RAC = 10;

/** The 50th and 95th percentile of the project's host p_fpops (kept by the cron). */
export interface FpopsPercentiles {
  readonly p50: number;
  readonly p95: number;
}

/**
 * fpops_percentile's index into the ascending list of n values: `LIMIT m,1` with
 * m = (int)(n·percentile/100), i.e. the floor, 0-based.
 */
export function percentileIndex(n: number, percentile: number): number {
  return Math.floor((n * percentile) / 100);
}

/** The percentile of values already sorted ascending; null when there are none (BOINC refuses to start then). */
export function fpopsPercentile(sorted: readonly number[], percentile: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[percentileIndex(sorted.length, percentile)]!;
}

export interface TrickleInput {
  readonly runtime: number;
  /** The host's benchmark; null = never reported (handled like BOINC's negative "unknown"). */
  readonly hostPFpops: number | null;
  /** The app's trickle_max_runtime (BOINC's --max_runtime). */
  readonly maxRuntime: number;
  readonly percentiles: FpopsPercentiles | null;
}

/** Where the FLOPS came from: the host's own, or the percentile that replaced it. */
export type FlopsSource = "host" | "p50" | "p95";

export interface TrickleCredit {
  readonly credit: number;
  /** The runtime paid: the reported one, or max_runtime when it was cut. */
  readonly runtime: number;
  readonly runtimeCut: boolean;
  readonly flops: number;
  readonly flopsSource: FlopsSource;
}

export type TrickleRefusal = "nonpositive_runtime" | "no_percentiles";

/**
 * handle_trickle's arithmetic. Refused: a runtime <= 0 (as BOINC), and a host without a usable
 * benchmark while no 50th percentile exists yet (BOINC would not be running at all then).
 * Without percentiles a host's own benchmark is used uncapped.
 */
export function trickleCredit(input: TrickleInput): TrickleCredit | TrickleRefusal {
  if (!(input.runtime > 0)) return "nonpositive_runtime";
  const runtimeCut = input.runtime > input.maxRuntime;
  const runtime = runtimeCut ? input.maxRuntime : input.runtime;
  let flops = input.hostPFpops ?? -1;
  let flopsSource: FlopsSource = "host";
  if (flops < 0) {
    if (!input.percentiles) return "no_percentiles";
    flops = input.percentiles.p50;
    flopsSource = "p50";
  }
  if (input.percentiles && flops > input.percentiles.p95) {
    flops = input.percentiles.p95;
    flopsSource = "p95";
  }
  // cpu_time_to_credit: cpu_time × flops × COBBLESTONE_SCALE, the macro expanded.
  return { credit: pfcToCreditExpanded(runtime * flops), runtime, runtimeCut, flops, flopsSource };
}

export interface TrickleAttribution {
  readonly hostId: number;
  readonly userId: number;
  readonly teamId: number;
  readonly appId: number;
  /** The result the message names; null: no per-app credit (BOINC's handler books none). */
  readonly resultId: number | null;
}

/**
 * The ledger grant of a trickle: grant_credit(host, now − 86400, credit), to the host, its
 * owner and the owner's team; per-app credit only when it names its result, and never a job.
 */
export function trickleGrant(who: TrickleAttribution, now: number, credit: number): Grant {
  return {
    resultId: who.resultId ?? 0,
    hostId: who.hostId,
    userId: who.userId,
    teamId: who.teamId,
    appId: who.appId,
    credit,
    startTime: now - SECONDS_PER_DAY,
    perApp: who.resultId === null ? "none" : "credit",
  };
}
