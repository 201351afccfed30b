/**
 * Monthly history buckets (docs/storage.md, roll-up): month arithmetic, which months are old
 * enough to roll up, and what a run of day buckets becomes as one month. Pure.
 */
import type { DayBucket } from "./day-bucket";

/** Months since 1970-01 (UTC) of a day number: (year − 1970) × 12 + month − 1. */
export function monthOfDay(day: number): number {
  const d = new Date(day * 86_400_000);
  return (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth();
}

/** The day number of a month's first day. */
export function firstDayOfMonth(month: number): number {
  return Date.UTC(1970 + Math.floor(month / 12), ((month % 12) + 12) % 12, 1) / 86_400_000;
}

/**
 * The first day kept as days when the project's clock is at `today` and `keptDays` days are
 * kept: the first day of the month holding day today − keptDays. Every month before it ends
 * before that day, so only whole months older than the span roll up.
 */
export function rollUpBoundary(today: number, keptDays: number): number {
  return firstDayOfMonth(monthOfDay(today - keptDays));
}

/**
 * One bucket from a run of buckets: the credit summed, and the RAC pair with the latest time
 * (the rule a day's bucket already follows when passes arrive out of order); on a tie, the
 * later one in the run. The roll-up's SQL (src/db/history-rollup.ts) does the same.
 */
export function rollUp(run: readonly DayBucket[], day: number): DayBucket {
  let credit = 0;
  let pair = { expavgCredit: 0, expavgTime: -Infinity };
  for (const b of run) {
    credit += b.credit;
    if (b.expavgTime >= pair.expavgTime) pair = b;
  }
  return { day, credit, expavgCredit: pair.expavgCredit, expavgTime: run.length === 0 ? 0 : pair.expavgTime };
}

/**
 * Buckets (ascending by day; a monthly bucket dated at its month's first day) with every bucket
 * before `monthlyBefore` folded into one per month, dated at the month's first day: what the
 * history looks like whether the roll-up of those months has run, half run, or a late backfill
 * wrote day rows into a month already rolled up.
 */
export function foldMonths(buckets: readonly DayBucket[], monthlyBefore: number): DayBucket[] {
  const months = new Map<number, DayBucket[]>();
  const days: DayBucket[] = [];
  for (const b of buckets) {
    if (b.day >= monthlyBefore) {
      days.push(b);
      continue;
    }
    const month = monthOfDay(b.day);
    const run = months.get(month);
    if (run) run.push(b);
    else months.set(month, [b]);
  }
  const folded = [...months].sort(([a], [b]) => a - b).map(([month, run]) => rollUp(run, firstDayOfMonth(month)));
  return [...folded, ...days];
}
