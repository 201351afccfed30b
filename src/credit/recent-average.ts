import { CREDIT_HALF_LIFE, RAC_TAYLOR_THRESHOLD, SECONDS_PER_DAY } from "./constants";

/**
 * A recent average credit as BOINC stores it: expavg_credit (credits/day) as of expavg_time.
 * expavg_time = 0 means "never updated".
 */
export interface RecentAverage {
  readonly expavgCredit: number;
  readonly expavgTime: number;
}

/** exp(-diff·ln2/half_life) for a gap that is clamped at zero, as update_average computes it. */
export function decayWeight(now: number, since: number): number {
  const diff = Math.max(now - since, 0);
  return Math.exp((-diff * Math.LN2) / CREDIT_HALF_LIFE);
}

/** The RAC an interval of zero length adds per credit: ln2·86400/half_life (= ln2/7). */
export const TAYLOR_RATE = (Math.LN2 * SECONDS_PER_DAY) / CREDIT_HALF_LIFE;

/**
 * BOINC's update_average (lib/util.cpp): add `work` credit, started at `workStart`, at `now`.
 * Case A (expavgTime set): decay, then spread the work over the gap (or the Taylor limit for
 * gaps under ~0.87 s). Case B (never set, work ≠ 0): work divided by the days since the start.
 * Case C (never set, no work): unchanged. The time becomes `now`; once the average counts
 * credit (≠ 0) it never moves back: BOINC's server clock never runs backwards, a client's
 * `now` might, and a clock moved back would decay the next grant over a gap that never
 * happened (SECURITY.md). A `now` before the time adds the work with a zero gap (the Taylor
 * rate), as BOINC's clamp does. A clock set only by a creation time (average 0) still follows
 * an earlier `now`, so a backfill's first grant starts it where history started.
 * BOINC's Case B divides by zero when the work started at `now`; we take the Taylor limit
 * there instead (docs/spec/credit.md#finite-numbers: no infinite numbers).
 */
export function updateRecentAverage(ra: RecentAverage, now: number, workStart: number, work: number): RecentAverage {
  if (ra.expavgTime !== 0) {
    const diff = Math.max(now - ra.expavgTime, 0);
    const weight = Math.exp((-diff * Math.LN2) / CREDIT_HALF_LIFE);
    let avg = ra.expavgCredit * weight;
    if (1 - weight > RAC_TAYLOR_THRESHOLD) avg += (1 - weight) * (work / (diff / SECONDS_PER_DAY));
    else avg += work * TAYLOR_RATE;
    return { expavgCredit: avg, expavgTime: ra.expavgCredit === 0 ? now : Math.max(now, ra.expavgTime) };
  }
  if (work !== 0) {
    const days = (now - workStart) / SECONDS_PER_DAY;
    const avg = days > 0 ? work / days : work * TAYLOR_RATE;
    return { expavgCredit: avg, expavgTime: now };
  }
  return { expavgCredit: ra.expavgCredit, expavgTime: now };
}

/** The stored pair decayed to `at` (what BOINC's pages ask consumers to compute). */
export function decayedRecentAverage(ra: RecentAverage, at: number): number {
  if (ra.expavgTime === 0) return ra.expavgCredit;
  return ra.expavgCredit * decayWeight(at, ra.expavgTime);
}
