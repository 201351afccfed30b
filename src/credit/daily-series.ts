/**
 * A daily series for charts: one point per UTC day of a range, days without a row showing
 * zero deltas and the running total carried over. Pure.
 */
import { dateOfDay } from "./history";

export interface DailyRow {
  readonly day: number;
  readonly ec: number;
  readonly claimedEc: number;
  readonly cpuTime: number;
  readonly gpuTime: number;
  readonly njobsSuccess: number;
  readonly njobsError: number;
  readonly totalEc: number;
  readonly confirmedEc: number | null;
  readonly factor: number | null;
  readonly windowGranted: number | null;
  readonly windowEstimated: number | null;
}

export interface SeriesPoint {
  date: string;
  ec: number;
  cpu_time: number;
  gpu_time: number;
  njobs_success: number;
  njobs_error: number;
  total_ec: number;
  claimed_ec: number;
  confirmed_ec: number | null;
  factor: number | null;
  window_granted: number | null;
  window_estimated: number | null;
}

/** The columns of a point, in the order a CSV lists them. */
export const SERIES_COLUMNS = [
  "date",
  "ec",
  "cpu_time",
  "gpu_time",
  "njobs_success",
  "njobs_error",
  "total_ec",
  "claimed_ec",
  "confirmed_ec",
  "factor",
  "window_granted",
  "window_estimated",
] as const satisfies readonly (keyof SeriesPoint)[];

/** Days first … last; `totalBefore` is the running total at the end of day first − 1. */
export function fillDailySeries(rows: readonly DailyRow[], first: number, last: number, totalBefore: number): SeriesPoint[] {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const points: SeriesPoint[] = [];
  let total = totalBefore;
  for (let day = first; day <= last; day++) {
    const r = byDay.get(day);
    if (r) total = r.totalEc;
    points.push({
      date: dateOfDay(day),
      ec: r?.ec ?? 0,
      cpu_time: r?.cpuTime ?? 0,
      gpu_time: r?.gpuTime ?? 0,
      njobs_success: r?.njobsSuccess ?? 0,
      njobs_error: r?.njobsError ?? 0,
      total_ec: total,
      claimed_ec: r?.claimedEc ?? 0,
      confirmed_ec: r?.confirmedEc ?? null,
      factor: r?.factor ?? null,
      window_granted: r?.windowGranted ?? null,
      window_estimated: r?.windowEstimated ?? null,
    });
  }
  return points;
}

/** The series as CSV (RFC 4180; every field is a number or a date, so nothing needs quoting). */
export function seriesCsv(points: readonly SeriesPoint[]): string {
  const lines = [SERIES_COLUMNS.join(",")];
  for (const p of points) lines.push(SERIES_COLUMNS.map((c) => (p[c] === null ? "" : String(p[c]))).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
