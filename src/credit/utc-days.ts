/** UTC days as the daily histories count them: whole days since 1970-01-01. Pure. */
import { SECONDS_PER_DAY } from "./constants";

/** The UTC day of a Unix time. */
export function utcDay(unixSeconds: number): number {
  return Math.floor(unixSeconds / SECONDS_PER_DAY);
}

/** "2024-10-04" for a day number. */
export function dateOfDay(day: number): string {
  return new Date(day * SECONDS_PER_DAY * 1000).toISOString().slice(0, 10);
}

/** The day number of "2024-10-04", or null if it is not a real date. */
export function dayOfDate(date: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return null;
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms) || dateOfDay(ms / 1000 / SECONDS_PER_DAY) !== date) return null;
  return ms / 1000 / SECONDS_PER_DAY;
}
