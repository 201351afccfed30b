import { SECONDS_PER_DAY } from "./constants";
import { type RecentAverage, decayedRecentAverage, updateRecentAverage } from "./recent-average";

/**
 * A recent average (BOINC's update_average, a week's half-life) of credit kept as daily sums:
 * each day's credit is added at the end of its day (or `now`, for today) as work started at
 * the day's start, and the result decayed to `now`. What an account manager's `user_avg_ec`
 * is made of, since only the daily sums are stored.
 */
export function recentAverageOfDays(days: readonly { day: number; ec: number }[], now: number): number {
  let ra: RecentAverage = { expavgCredit: 0, expavgTime: 0 };
  for (const { day, ec } of [...days].sort((a, b) => a.day - b.day)) {
    if (ec === 0) continue;
    const start = day * SECONDS_PER_DAY;
    ra = updateRecentAverage(ra, Math.min(start + SECONDS_PER_DAY, Math.max(now, start)), start, ec);
  }
  return decayedRecentAverage(ra, now);
}
