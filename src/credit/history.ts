/**
 * Daily credit history (UTC days): from the stored buckets of the days that had grants to a
 * dense series with, for each day, the credit granted, the total and the RAC at its end.
 */
import { SECONDS_PER_DAY } from "./constants";
import type { DayBucket } from "./day-bucket";
import { firstDayOfMonth, foldMonths, monthOfDay } from "./history-months";
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

export type { DayBucket };

export type HistoryPeriod = "day" | "month";

export interface HistoryDay {
  /** The day, or a month's first day. */
  readonly date: string;
  readonly period: HistoryPeriod;
  /** Credit granted that day (month). */
  readonly credit: number;
  /** Total credit at the end of the day (month). */
  readonly total_credit: number;
  /** RAC at the end of the day or month (today: at `now`). */
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

interface Period {
  readonly first: number;
  readonly last: number;
  readonly period: HistoryPeriod;
}

/** The window's periods: whole months before `monthlyBefore` (a month's first day), days from it. */
function periodsOf(w: HistoryWindow, monthlyBefore: number): Period[] {
  const out: Period[] = [];
  if (w.firstDay < monthlyBefore) {
    const lastMonth = monthOfDay(Math.min(w.lastDay, monthlyBefore - 1));
    for (let m = monthOfDay(w.firstDay); m <= lastMonth; m++) {
      out.push({ first: firstDayOfMonth(m), last: firstDayOfMonth(m + 1) - 1, period: "month" });
    }
  }
  for (let day = Math.max(w.firstDay, monthlyBefore); day <= w.lastDay; day++) out.push({ first: day, last: day, period: "day" });
  return out;
}

/**
 * `buckets` (ascending by day; monthly buckets dated at their month's first day) must hold
 * every bucket from the window's first period on, and the last one before it if any (it
 * carries the RAC into the window). Before `monthlyBefore` the history is kept by month, so
 * that part of the window comes as whole months. The total at the end of a period is the
 * current total less the credit of the periods after it, counted back from the end, so the
 * last period's total is the subject's total itself.
 */
export function dailyHistory(buckets: readonly DayBucket[], totalCredit: number, w: HistoryWindow, monthlyBefore = 0): HistoryDay[] {
  const periods = periodsOf(w, monthlyBefore);
  const start = periods[0]?.first ?? w.firstDay;
  const end = periods.at(-1)?.last ?? w.lastDay;
  const folded = foldMonths(buckets, monthlyBefore);
  // After folding, each period has at most one bucket, dated at the period's first day.
  const byStart = new Map(folded.filter((b) => b.day >= start).map((b) => [b.day, b]));
  let latest = folded.filter((b) => b.day < start).at(-1);
  const rac: number[] = [];
  for (const p of periods) {
    latest = byStart.get(p.first) ?? latest;
    const endOfPeriod = Math.min((p.last + 1) * SECONDS_PER_DAY, w.now);
    rac.push(latest ? decayedRecentAverage(latest, endOfPeriod) : 0);
  }
  let total = totalCredit - folded.filter((b) => b.day > end).reduce((sum, b) => sum + b.credit, 0);
  const out: HistoryDay[] = [];
  for (let i = periods.length - 1; i >= 0; i--) {
    const p = periods[i]!;
    const credit = byStart.get(p.first)?.credit ?? 0;
    out.push({ date: dateOfDay(p.first), period: p.period, credit, total_credit: total, expavg_credit: rac[i]! });
    total -= credit;
  }
  return out.reverse();
}

/** What a holder's (or the project's) live row says about its current day. */
export interface LiveDay {
  /** Credit granted in its current day (the day of expavg_time, its last grant). */
  readonly dayCredit: number;
  readonly expavgCredit: number;
  readonly expavgTime: number;
}

/**
 * The stored buckets and the current day read from the live row: a day's bucket is written only
 * when a later day's first grant finishes it (docs/storage.md, Daily history), so until then its
 * credit is the row's day_credit and its RAC pair the live one. A stored bucket of the same
 * day (written before buckets were kept this way) is merged by the bucket rule: credit added,
 * the later pair kept.
 */
export function withOpenDay(buckets: readonly DayBucket[], live: LiveDay): DayBucket[] {
  const credit = live.dayCredit;
  if (credit === 0) return [...buckets];
  const day = dayOf(live.expavgTime);
  const open: DayBucket = { day, credit, expavgCredit: live.expavgCredit, expavgTime: live.expavgTime };
  const same = buckets.find((b) => b.day === day);
  const merged =
    same === undefined
      ? open
      : {
          day,
          credit: same.credit + credit,
          ...(same.expavgTime > live.expavgTime
            ? { expavgCredit: same.expavgCredit, expavgTime: same.expavgTime }
            : { expavgCredit: live.expavgCredit, expavgTime: live.expavgTime }),
        };
  return [...buckets.filter((b) => b.day !== day), merged].sort((a, b) => a.day - b.day);
}
