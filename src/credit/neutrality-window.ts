/**
 * What a host earns per device-hour for one app version, kept on its host_app_versions row as
 * the pass grants: credit, device-seconds and valid results of the current period (30 days)
 * and of the one before. Read as a sliding window of one period: the current period in full
 * and the previous one weighted by the share of it still inside the window (the usual
 * two-bucket sliding window), so a row costs six numbers and a period, never a row per day.
 */
import { NEUTRALITY } from "./parameters";

export interface NeutralAmounts {
  readonly credit: number;
  readonly deviceSeconds: number;
  readonly results: number;
}

export interface NeutralWindow {
  /** Period number of `current` (Unix seconds / period length, floored); 0: never written. */
  readonly period: number;
  readonly current: NeutralAmounts;
  readonly previous: NeutralAmounts;
}

/** Valid results of one row's change, dated by the period they were received in. */
export interface NeutralSample extends NeutralAmounts {
  readonly period: number;
}

const NO_NEUTRAL_AMOUNTS: NeutralAmounts = { credit: 0, deviceSeconds: 0, results: 0 };
export const EMPTY_NEUTRAL_WINDOW: NeutralWindow = { period: 0, current: NO_NEUTRAL_AMOUNTS, previous: NO_NEUTRAL_AMOUNTS };

export function neutralPeriodOf(t: number): number {
  return Math.floor(t / NEUTRALITY.periodSeconds);
}

export function addAmounts(a: NeutralAmounts, b: NeutralAmounts): NeutralAmounts {
  return { credit: a.credit + b.credit, deviceSeconds: a.deviceSeconds + b.deviceSeconds, results: a.results + b.results };
}

/**
 * A sample of the stored period adds to it, of the period before to `previous`; a later one
 * starts a new period (the old current becomes previous if adjacent); an older one is outside
 * every window a reader can ask for and is dropped.
 */
export function addNeutralSample(w: NeutralWindow, s: NeutralSample): NeutralWindow {
  if (s.period > w.period) {
    return { period: s.period, current: amountsOf(s), previous: s.period === w.period + 1 ? w.current : NO_NEUTRAL_AMOUNTS };
  }
  if (s.period === w.period) return { ...w, current: addAmounts(w.current, s) };
  if (s.period === w.period - 1) return { ...w, previous: addAmounts(w.previous, s) };
  return w;
}

function amountsOf(s: NeutralAmounts): NeutralAmounts {
  return { credit: s.credit, deviceSeconds: s.deviceSeconds, results: s.results };
}

/** How much of a row's current and previous period counts in the window ending at `t`. */
function neutralWeightsAt(period: number, t: number): { readonly current: number; readonly previous: number } {
  const now = neutralPeriodOf(t);
  const remaining = 1 - (t / NEUTRALITY.periodSeconds - now);
  if (period >= now) return { current: 1, previous: remaining };
  if (period === now - 1) return { current: remaining, previous: 0 };
  return { current: 0, previous: 0 };
}

/** The window of one period ending at `t`. */
export function neutralWindowAt(w: NeutralWindow, t: number): NeutralAmounts {
  const k = neutralWeightsAt(w.period, t);
  const part = (f: keyof NeutralAmounts) => w.current[f] * k.current + w.previous[f] * k.previous;
  return { credit: part("credit"), deviceSeconds: part("deviceSeconds"), results: part("results") };
}
