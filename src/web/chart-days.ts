/** The days a page charts: the same dense daily series as the history endpoints answer. */
import { dailyHistory } from "../credit/history";
import { historyWindow } from "../credit/history";
import type { StoredHistory } from "../snapshots/holders";
import type { ChartDay } from "./chart-scale";
import type { ChartWindow } from "./page-query";

/** The fewest days a chart starting at the first credit shows: one day of data is a week's chart, not one bar across the frame. */
export const MIN_CHART_DAYS = 7;

/**
 * The last `days` days up to today, from the first credit on when that is later (but at least
 * MIN_CHART_DAYS): a holder with a few days of data gets a chart of those days, not an empty
 * frame with a thin bar at its right edge. A snapshot keeps 366 days of buckets and a page
 * asks for 365 at most, so the stored buckets always cover the window (no D1 fallback needed
 * here). A project keeping fewer days than the window (daily_history_days) charts its older
 * part by month.
 */
export function chartDays(history: StoredHistory, totalCredit: number, days: ChartWindow, now: number): ChartDay[] {
  const all = dailyHistory(history.buckets, totalCredit, historyWindow({ days }, now), history.monthly_before ?? 0).map((d) => ({
    date: d.date,
    period: d.period,
    credit: d.credit,
    rac: d.expavg_credit,
  }));
  return fromFirstCredit(all);
}

/**
 * The days from the first one with credit or RAC (before any credit both are exactly 0), keeping
 * at least MIN_CHART_DAYS; a window with no credit at all is kept whole (the chart says so).
 */
export function fromFirstCredit(days: readonly ChartDay[]): ChartDay[] {
  const first = days.findIndex((d) => d.credit > 0 || d.rac > 0);
  if (first <= 0) return [...days];
  return days.slice(Math.min(first, Math.max(0, days.length - MIN_CHART_DAYS)));
}
