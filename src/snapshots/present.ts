/** Snapshots as answered: every RAC decayed to the time of the answer (`as_of`). */
import { decayedRecentAverage } from "../credit/recent-average";
import type { HolderSnapshot } from "./holders";

export function racAt(pair: { expavg_credit: number; expavg_time: number }, asOf: number): number {
  return decayedRecentAverage({ expavgCredit: pair.expavg_credit, expavgTime: pair.expavg_time }, asOf);
}

export function presentHolder(s: Omit<HolderSnapshot, "history">, asOf: number) {
  const { apps, ...own } = s;
  return {
    ...own,
    recent_average_credit: racAt(s, asOf),
    ...(apps ? { apps: apps.map((a) => ({ ...a, recent_average_credit: racAt(a, asOf) })) } : {}),
    as_of: asOf,
  };
}
