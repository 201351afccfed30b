/**
 * The fair policy's statistics (docs/spec/fair-policy.md#state): O(1) per host × app version and per app
 * version, plus a bootstrap buffer that is emptied once full. Pure updates; nothing here
 * reads a clock or the database.
 */
import { FAIR } from "./parameters";
import type { ErrorOutcome } from "./error-outcome";

export interface FairHostState {
  /** Sane samples since creation or the last re-learn (counts to FAIR.hostSamples). */
  readonly n: number;
  /** Typical ln(PFC/est) of the host; null while the host is young. */
  readonly q: number | null;
  /** The young host's samples (ln), emptied when q is set. */
  readonly buf: readonly number[];
  /** Outliers in a row: positive high, negative low. */
  readonly run: number;
  /** EMA of "this outcome was an error/timeout" (valid → 0). */
  readonly err: number;
  /** EMA of "this sample's z was above the version's tHi"; null until its first established sample in good standing. */
  readonly f: number | null;
  /**
   * Version 3: the row existed before its version was sealed, so it may move the version's
   * statistics (docs/spec/fair-policy.md#founders). Set when the row is created, never by a re-learn.
   */
  readonly founder: boolean;
}

export interface FairVersionState {
  /** Samples taken into the level. */
  readonly n: number;
  /** Level: typical PFC/est of the version's hosts (linear); null before its first sample. */
  readonly level: number | null;
  /** The first FAIR.versionBuffer samples (ln), emptied once full. */
  readonly buf: readonly number[];
  /** Tracked 98% and 2% quantiles of z (ln). */
  readonly tHi: number;
  readonly tLo: number;
  readonly zn: number;
  /** EMA of "this sample's z was above tHi" over the samples of established hosts in good standing. */
  readonly fv: number;
  /** The scale its claims use: set by rescale (seed while young); null = the default seed. */
  readonly scale: number | null;
  /** A rescale found the version mature and gave it S / L_v: its expected PFC is est × S (version 3). */
  readonly ownScale: boolean;
  /** Version 3: after its app's anchor only founder rows feed its level, quantiles and fv. */
  readonly sealed: boolean;
}

export const NEW_FAIR_HOST: FairHostState = { n: 0, q: null, buf: [], run: 0, err: 0, f: null, founder: true };

/** A row created now: a founder unless its version is already sealed. */
export function newFairHost(version: Pick<FairVersionState, "sealed">): FairHostState {
  return version.sealed ? { ...NEW_FAIR_HOST, founder: false } : NEW_FAIR_HOST;
}

/** Whether this host × version may move its version's statistics (version 3's seal). */
export function movesVersion(h: FairHostState, v: FairVersionState): boolean {
  return h.founder || !v.sealed;
}

export const NEW_FAIR_VERSION: FairVersionState = {
  n: 0,
  level: null,
  buf: [],
  tHi: FAIR.initialHigh,
  tLo: FAIR.initialLow,
  zn: 0,
  fv: FAIR.highShareStart,
  scale: null,
  ownScale: false,
  sealed: false,
};

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : 0.5 * (s[mid - 1]! + s[mid]!);
}

/** Re-learn: the host is young again; its error rate, its high-z share and whether it is a founder are kept. */
export function relearn(h: FairHostState): FairHostState {
  return { ...NEW_FAIR_HOST, err: h.err, f: h.f, founder: h.founder };
}

/** A client error or timeout raises the rate (docs/spec/fair-policy.md#r0). */
export function afterError(h: FairHostState): FairHostState {
  return { ...h, err: h.err + FAIR.errorAlpha * (1 - h.err) };
}

/** A valid result lowers it (docs/spec/fair-policy.md#r0). */
export function afterValid(h: FairHostState): FairHostState {
  return { ...h, err: h.err * (1 - FAIR.errorAlpha) };
}

export function inGoodStanding(h: FairHostState): boolean {
  return h.err <= FAIR.errorMax;
}

/** One ln sample into a young host; at FAIR.hostSamples its level is their exact median. */
export function addYoungSample(h: FairHostState, x: number): FairHostState {
  const buf = [...h.buf, x];
  const n = h.n + 1;
  return n >= FAIR.hostSamples ? { ...h, n, buf: [], q: median(buf) } : { ...h, n, buf };
}

/** The version level: the median of its first samples, then a running mean of e^x (docs/spec/fair-policy.md#r18). */
export function addLevelSample(v: FairVersionState, x: number): FairVersionState {
  if (v.n < FAIR.versionBuffer) {
    const buf = [...v.buf, x];
    const level = Math.exp(median(buf));
    return { ...v, n: v.n + 1, level, buf: buf.length === FAIR.versionBuffer ? [] : buf };
  }
  const w = Math.max(1 / (v.n + 1), FAIR.versionWeight);
  return { ...v, n: v.n + 1, level: v.level! + w * (Math.exp(x) - v.level!) };
}

/** Stochastic-approximation step of the version's z quantiles (docs/spec/fair-policy.md#r17). */
export function addZSample(v: FairVersionState, z: number): FairVersionState {
  const eta = FAIR.quantileStep * (v.zn < FAIR.quantileWarmup ? 2 : 1);
  const above = (t: number) => (z > t ? 1 : 0);
  return {
    ...v,
    tHi: v.tHi + eta * (above(v.tHi) - (1 - FAIR.quantileHigh)),
    tLo: v.tLo + eta * (above(v.tLo) - (1 - FAIR.quantileLow)),
    zn: v.zn + 1,
  };
}

/**
 * docs/spec/fair-policy.md#r14: how much of a job's z is paid, from the version's z band: 0 where the band is that of
 * noise around rsc_fpops_est (the job is paid the expected credit), 1 where est hides job sizes.
 */
export function paidShare(v: FairVersionState): number {
  const share = (v.tHi - v.tLo - FAIR.zBandNoise) / (FAIR.zBandSizes - FAIR.zBandNoise);
  return Math.min(1, Math.max(0, share));
}

/** The most a host's high-z share may be and still feed its version's z quantiles (docs/spec/fair-policy.md#r17). */
export function quantileGate(v: FairVersionState): number {
  return Math.max(FAIR.gateFactor * v.fv, v.fv + FAIR.gateMargin);
}

export interface GateStep {
  readonly host: FairHostState;
  readonly version: FairVersionState;
  /** Whether z went into the version's quantiles (false: the host is held out by the gate). */
  readonly fed: boolean;
}

/**
 * docs/spec/fair-policy.md#r17 for an established host in good standing: both shares move towards 1[z > tHi] (tHi as
 * before this result), then z feeds the quantiles only if the host's share is within the gate.
 * A new record starts at the gate, so a host must show ordinary z before it has a say.
 */
export function gateZSample(h: FairHostState, v: FairVersionState, z: number): GateStep {
  const high = z > v.tHi ? 1 : 0;
  const gate = quantileGate(v);
  const before = h.f ?? gate;
  const f = before + FAIR.highShareHostStep * (high - before);
  const fv = v.fv + FAIR.highShareVersionStep * (high - v.fv);
  const host = { ...h, f };
  const version = { ...v, fv };
  return f <= gate ? { host, version: addZSample(version, z), fed: true } : { host, version, fed: false };
}

export function isMatureVersion(v: FairVersionState): boolean {
  return v.n >= FAIR.versionSamples && v.level !== null;
}

/** A client error or a timeout counts; an abort by the project (exit 202) does not (docs/spec/fair-policy.md#r0). */
export function errorCountsAgainstHost(outcome: ErrorOutcome): boolean {
  return outcome === "error" || outcome === "timeout";
}

export interface FairErrorEffect {
  /** Raise the host × version's error rate (afterError). */
  readonly counts: boolean;
  /** Create its row first (zeroed, as a validated result would). */
  readonly createsRow: boolean;
}

/**
 * docs/spec/fair-policy.md#r0 on a host × version's row. BOINC's scheduler creates the row when it sends the job, so
 * under the fair policy an error for a row that does not exist yet creates it and counts.
 * Under "boinc" a missing row stays missing (BOINC's numbers, docs/spec/credit.md#errors): the rate counts only
 * where a row exists. `rowExists`: after BOINC's own effect (a timeout creates the row).
 */
export function fairErrorEffect(outcome: ErrorOutcome, rowExists: boolean, fairPays: boolean): FairErrorEffect {
  const counts = errorCountsAgainstHost(outcome) && (rowExists || fairPays);
  return { counts, createsRow: counts && !rowExists };
}
