/** The days a page charts: the same dense daily series as the history endpoints answer. */
import { type DayBucket, dailyHistory } from "../credit/history";
import { historyWindow } from "../credit/history";
import type { ChartDay } from "./chart-scale";
import type { ChartWindow } from "./page-query";

/**
 * The last `days` days up to today. A snapshot keeps 366 days of buckets and a page asks for
 * 365 at most, so the stored buckets always cover the window (no D1 fallback needed here).
 */
export function chartDays(buckets: readonly DayBucket[], totalCredit: number, days: ChartWindow, now: number): ChartDay[] {
  return dailyHistory(buckets, totalCredit, historyWindow({ days }, now)).map((d) => ({
    date: d.date,
    credit: d.credit,
    rac: d.expavg_credit,
  }));
}
