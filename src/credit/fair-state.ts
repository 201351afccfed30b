/**
 * The fair policy's statistics (FAIR_MODE "State"): O(1) per host × app version and per app
 * version, plus a bootstrap buffer that is emptied once full. Pure updates; nothing here
 * reads a clock or the database.
 */
import { FAIR } from "./constants";
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
  /** The scale its claims use: set by rescale (seed while young); null = the default seed. */
  readonly scale: number | null;
}

export const NEW_FAIR_HOST: FairHostState = { n: 0, q: null, buf: [], run: 0, err: 0 };

export const NEW_FAIR_VERSION: FairVersionState = {
  n: 0,
  level: null,
  buf: [],
  tHi: FAIR.initialHigh,
  tLo: FAIR.initialLow,
  zn: 0,
  scale: null,
};

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : 0.5 * (s[mid - 1]! + s[mid]!);
}

/** Re-learn: the host is young again; its error rate is kept. */
export function relearn(h: FairHostState): FairHostState {
  return { ...NEW_FAIR_HOST, err: h.err };
}

/** R0: a client error or timeout raises the rate. */
export function afterError(h: FairHostState): FairHostState {
  return { ...h, err: h.err + FAIR.errorAlpha * (1 - h.err) };
}

/** R0: a valid result lowers it. */
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

/** R1.8: the version level: the median of its first samples, then a running mean of e^x. */
export function addLevelSample(v: FairVersionState, x: number): FairVersionState {
  if (v.n < FAIR.versionBuffer) {
    const buf = [...v.buf, x];
    const level = Math.exp(median(buf));
    return { ...v, n: v.n + 1, level, buf: buf.length === FAIR.versionBuffer ? [] : buf };
  }
  const w = Math.max(1 / (v.n + 1), FAIR.versionWeight);
  return { ...v, n: v.n + 1, level: v.level! + w * (Math.exp(x) - v.level!) };
}

/** R1.7: stochastic-approximation step of the version's z quantiles. */
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

export function isMatureVersion(v: FairVersionState): boolean {
  return v.n >= FAIR.versionSamples && v.level !== null;
}

/** R0: a client error or a timeout counts; an abort by the project (exit 202) does not. */
export function errorCountsAgainstHost(outcome: ErrorOutcome): boolean {
  return outcome === "error" || outcome === "timeout";
}
