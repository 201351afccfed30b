/**
 * docs/spec/fair-policy.md#r1: the peak-FLOP count the fair policy pays for one valid result, and the
 * statistics it moves. Pure. The caller records the valid outcome (afterValid) first, as the
 * validator does before it computes the claim.
 */
import { CONS_VALID_HOST_SCALE, MIN_ELAPSED_TIME, PFC_SANE_MAX, PFC_SANE_MIN } from "./constants";
import { FAIR } from "./parameters";
import {
  type FairHostState,
  type FairVersionState,
  addLevelSample,
  addYoungSample,
  gateZSample,
  inGoodStanding,
  movesVersion,
  paidShare,
  relearn,
} from "./fair-state";
import type { WorkunitEstimate } from "./pfc";

/**
 * Which rule decided the pay (shown in explanations and counted by the fairness report). A
 * result row stores a rule as its position here (db/codes.ts): add new rules at the end.
 */
export const FAIR_RULES = [
  "normalized",
  "young_host",
  "outlier_high",
  "outlier_low",
  "insane",
  "bad_standing",
  "host_scale_check",
  "no_estimate",
] as const;
export type FairRule = (typeof FAIR_RULES)[number];

/** The rules that count as an outlier in the fairness report. */
export const OUTLIER_RULES: readonly FairRule[] = ["outlier_high", "outlier_low", "insane"];

export interface FairMeasurements {
  readonly elapsedTime: number;
  readonly cpuTime: number;
  readonly flopsEstimate: number;
}

export interface FairClaimInput {
  readonly result: FairMeasurements;
  readonly wu: WorkunitEstimate;
  readonly hostScaleCheck: boolean;
  /** consecutive_valid with this result counted. */
  readonly consecutiveValid: number;
  readonly host: FairHostState;
  readonly version: FairVersionState;
  /** The scale a version uses while rescale has not set one (1 CPU, 0.1 GPU). */
  readonly defaultScale: number;
  /** The app's level S as the last rescale left it; null before its first. */
  readonly appLevel: number | null;
}

export interface FairClaim {
  /** PFC to pay, before the rsc_fpops_bound cap. */
  readonly pfc: number;
  readonly rule: FairRule;
  /** w_v: the share of z a non-outlier is paid, as the version stood before this result. */
  readonly paidShare: number;
  /** This result's z went into the version's quantiles (an established host in good standing within the gate). */
  readonly feedsQuantiles: boolean;
  /** An established host in good standing whose high-z share is above the gate: its z was left out. */
  readonly heldOutByGate: boolean;
  /** Version 3: the version is sealed and this row is not a founder, so it moved no statistic. */
  readonly heldOutBySeal: boolean;
  readonly host: FairHostState;
  readonly version: FairVersionState;
}

const finitePositive = (x: number) => Number.isFinite(x) && x > 0;

/** raw = elapsed (cpu_time when elapsed < 1e-6) × flops_estimate; NaN if either is not a finite positive. */
function fairRawPfc(r: FairMeasurements): number {
  const elapsed = r.elapsedTime >= MIN_ELAPSED_TIME ? r.elapsedTime : r.cpuTime;
  return finitePositive(elapsed) && finitePositive(r.flopsEstimate) ? elapsed * r.flopsEstimate : Number.NaN;
}

export function versionScale(v: FairVersionState, defaultScale: number): number {
  return v.scale ?? defaultScale;
}

/**
 * E (docs/spec/fair-policy.md#r11): est × S once a rescale gave the version its own scale (version 3: what an
 * expected credit pays is exactly the app's anchored level); before, est × L_v × its seed
 * scale; null while the version has no level.
 */
export function expectedPfc(est: number, v: FairVersionState, defaultScale: number, appLevel: number | null): number | null {
  if (v.ownScale && appLevel) return est * appLevel;
  return v.level === null ? null : est * v.level * versionScale(v, defaultScale);
}

function nextRun(run: number, side: 1 | -1): number {
  return side === 1 ? (run >= 0 ? run + 1 : 1) : run <= 0 ? run - 1 : -1;
}

export function fairClaim(input: FairClaimInput): FairClaim {
  const { wu, host, version } = input;
  const est = wu.rscFpopsEst;
  const share = paidShare(version);
  const unfed = { paidShare: share, feedsQuantiles: false, heldOutByGate: false, heldOutBySeal: false };
  if (!finitePositive(est)) return { pfc: 0, rule: "no_estimate", ...unfed, host, version };
  const s = versionScale(version, input.defaultScale);
  const raw = fairRawPfc(input.result);
  // A version with no level yet: an established host is paid its scaled claim.
  let expected = expectedPfc(est, version, input.defaultScale, input.appLevel);
  if (expected === null && host.q !== null) expected = Number.isFinite(raw) ? raw * s : est * s;
  const ratio = raw / est;
  const good = inGoodStanding(host);
  // docs/spec/fair-policy.md#founders: after the seal only founder rows move the version.
  const moves = movesVersion(host, version);

  if (!(Number.isFinite(ratio) && ratio >= PFC_SANE_MIN && ratio <= PFC_SANE_MAX)) {
    // Insane: the expected credit, never the bound; no statistics, but it counts toward re-learn.
    const run = nextRun(host.run, 1);
    const after = run >= FAIR.outlierRun && host.q !== null ? relearn(host) : { ...host, run };
    return { pfc: expected ?? est * s, rule: "insane", ...unfed, host: after, version };
  }

  const x = Math.log(ratio);
  let pfc: number;
  let rule: FairRule;
  let h: FairHostState;
  let v = version;
  let sample: number;
  let fed = false;
  let heldOut = false;
  if (host.q !== null) {
    const e = expected!;
    const z = x - host.q;
    let run: number;
    if (z > version.tHi + FAIR.margin) {
      [pfc, rule, run] = [e, "outlier_high", nextRun(host.run, 1)];
    } else if (z < version.tLo - FAIR.margin) {
      [pfc, rule, run] = [e * Math.exp(z), "outlier_low", nextRun(host.run, -1)];
    } else {
      // docs/spec/fair-policy.md#r14 (version 2): only the share w_v of z is paid; w_v = 0 pays the expected credit.
      [pfc, rule, run] = [e * Math.exp(share * z), "normalized", 0];
    }
    if (input.hostScaleCheck && input.consecutiveValid < CONS_VALID_HOST_SCALE && pfc > e) {
      [pfc, rule] = [e, "host_scale_check"];
    }
    h = host;
    if (!good) {
      [pfc, rule] = [Math.min(pfc, e, raw * s), "bad_standing"];
    } else if (moves) {
      const step = gateZSample(host, v, z);
      [h, v, fed, heldOut] = [step.host, step.version, step.fed, !step.fed];
    }
    const q = host.q + FAIR.hostStep * Math.sign(z);
    h = { ...h, q, run };
    sample = q;
    if (Math.abs(run) >= FAIR.outlierRun) h = relearn(h);
  } else {
    pfc = expected ?? raw * s;
    rule = "young_host";
    if (!good) [pfc, rule] = [Math.min(pfc, raw * s), "bad_standing"];
    h = addYoungSample(host, x);
    sample = x;
  }
  // docs/spec/fair-policy.md#r18: only hosts in good standing that may move the version (founders, once sealed) feed
  // the level, and once the version has its level (from its versionBuffer-th sample) only within the band.
  if (good && moves && (v.n < FAIR.versionBuffer || Math.abs(sample - Math.log(v.level!)) <= FAIR.band)) {
    v = addLevelSample(v, sample);
  }
  return {
    pfc,
    rule,
    paidShare: share,
    feedsQuantiles: fed,
    heldOutByGate: heldOut,
    heldOutBySeal: good && !moves,
    host: h,
    version: v,
  };
}
