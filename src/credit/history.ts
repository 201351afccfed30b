/**
 * Daily credit history (UTC days): from the stored buckets of the days that had grants to a
 * dense series with, for each day, the credit granted, the total and the RAC at its end.
 */
import { SECONDS_PER_DAY } from "./constants";
import { decayedRecentAverage } from "./recent-average";

/** Days since 1970-01-01 UTC. */
export function dayOf(time: number): number {
  return Math.floor(time / SECONDS_PER_DAY);
}

/** "YYYY-MM-DD" of a day number. */
export function dateOfDay(day: number): string {
  return new Date(day * SECONDS_PER_DAY * 1000).toISOString().slice(0, 10);
}

/** The day number of "YYYY-MM-DD" (UTC), or NaN if it is no such date. */
export function dayOfDate(date: string): number {
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) || dateOfDay(ms / 86_400_000) !== date ? Number.NaN : ms / 86_400_000;
}

/** One stored day: the credit granted in it and the RAC pair after its last grant. */
export interface DayBucket {
  readonly day: number;
  readonly credit: number;
  readonly expavgCredit: number;
  readonly expavgTime: number;
}

export interface HistoryDay {
  readonly date: string;
  /** Credit granted that day. */
  readonly credit: number;
  /** Total credit at the end of the day. */
  readonly total_credit: number;
  /** RAC at the end of the day (today: at `now`). */
  readonly expavg_credit: number;
}

export interface HistoryWindow {
  readonly firstDay: number;
  readonly lastDay: number;
  /** When the series is read: today's RAC is decayed to here, not to midnight. */
  readonly now: number;
}

const DEFAULT_HISTORY_DAYS = 30;

/** The days a history answer covers: `days` (default 30) ending at `end` (YYYY-MM-DD; default today). */
export function historyWindow(query: { days?: number | undefined; end?: string | undefined }, now: number): HistoryWindow {
  const lastDay = query.end === undefined ? dayOf(now) : dayOfDate(query.end);
  return { firstDay: lastDay - ((query.days ?? DEFAULT_HISTORY_DAYS) - 1), lastDay, now };
}

/**
 * `buckets` (ascending by day) must hold every bucket from `firstDay` on, and the last one
 * before it if any (it carries the RAC into the window). The total at the end of a day is the
 * current total less the credit of the days after it, counted back from the end, so the
 * last day's total is the subject's total itself.
 */
export function dailyHistory(buckets: readonly DayBucket[], totalCredit: number, w: HistoryWindow): HistoryDay[] {
  const byDay = new Map(buckets.filter((b) => b.day >= w.firstDay).map((b) => [b.day, b]));
  let latest = buckets.filter((b) => b.day < w.firstDay).at(-1);
  const rac: number[] = [];
  for (let day = w.firstDay; day <= w.lastDay; day++) {
    latest = byDay.get(day) ?? latest;
    const endOfDay = Math.min((day + 1) * SECONDS_PER_DAY, w.now);
    rac.push(latest ? decayedRecentAverage(latest, endOfDay) : 0);
  }
  let total = totalCredit - buckets.filter((b) => b.day > w.lastDay).reduce((sum, b) => sum + b.credit, 0);
  const days: HistoryDay[] = [];
  for (let day = w.lastDay; day >= w.firstDay; day--) {
    const credit = byDay.get(day)?.credit ?? 0;
    days.push({ date: dateOfDay(day), credit, total_credit: total, expavg_credit: rac[day - w.firstDay]! });
    total -= credit;
  }
  return days.reverse();
}
