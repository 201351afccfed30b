/** One volunteer's credit summed across projects (GET /v1/cpid/:cpid). */
import { type RecentAverage, decayedRecentAverage } from "./recent-average";

export interface CreditHolding extends RecentAverage {
  readonly totalCredit: number;
}

/**
 * Totals add up as they are; RACs only once each is decayed to the same moment (each
 * project's pair is as of its own last grant).
 */
export function sumRecentAverages(holdings: readonly CreditHolding[], at: number) {
  let totalCredit = 0;
  let recentAverageCredit = 0;
  for (const h of holdings) {
    totalCredit += h.totalCredit;
    recentAverageCredit += decayedRecentAverage(h, at);
  }
  return { totalCredit, recentAverageCredit };
}
