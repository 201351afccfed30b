/** Day-aligned times in the past, for tests whose passes must fall on recent days. */
export const DAY = 86400;

/**
 * Today minus `days`, at 01:00 UTC, or earlier today when the day is younger than two hours:
 * a pass's `now` may not be in the future, and a run that starts just after midnight (CI did)
 * would otherwise post today's pass up to an hour ahead of the clock. Half the day's age keeps
 * every call of one test on the same time of day within a few seconds.
 */
export function daysAgo(days: number, nowSeconds = Date.now() / 1000): number {
  const today = Math.floor(nowSeconds / DAY);
  const intoDay = nowSeconds - today * DAY;
  return (today - days) * DAY + Math.min(3600, Math.floor(intoDay / 2));
}
