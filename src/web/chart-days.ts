/** The days a page charts: the same dense daily series as the history endpoints answer. */
import { dailyHistory } from "../credit/history";
import { historyWindow } from "../credit/history";
import type { StoredHistory } from "../snapshots/holders";
import type { ChartDay } from "./chart-scale";
import type { ChartWindow } from "./page-query";

/**
 * The last `days` days up to today. A snapshot keeps 366 days of buckets and a page asks for
 * 365 at most, so the stored buckets always cover the window (no D1 fallback needed here).
 * A project keeping fewer days than the window (daily_history_days) charts its older part by month.
 */
export function chartDays(history: StoredHistory, totalCredit: number, days: ChartWindow, now: number): ChartDay[] {
  return dailyHistory(history.buckets, totalCredit, historyWindow({ days }, now), history.monthly_before ?? 0).map((d) => ({
    date: d.date,
    period: d.period,
    credit: d.credit,
    rac: d.expavg_credit,
  }));
}
