/** Passes at recent times, so that the RAC decay between a pass and a read is visible. */
import { type PassBody, type ResultBody, result, workunit } from "../support/api-helpers";

import { DAY } from "../support/days";

export { DAY, daysAgo } from "../support/days";
/** The RAC half-life: 7 days. */
export const HALF_LIFE = 7 * DAY;

/** A pass at `now` with `count` workunits for one user on one host (two valid results each). */
export function passFor(now: number, firstWu: number, who: { host: number; user: number; team?: number }, count = 1): PassBody {
  const r = (id: number, over: Partial<ResultBody> = {}) =>
    result(id, {
      host_id: who.host,
      user_id: who.user,
      team_id: who.team ?? 0,
      sent_time: now - 5000,
      received_time: now - 1000,
      ...over,
    });
  const workunits = Array.from({ length: count }, (_, i) => {
    const wu = firstWu + i;
    return workunit(wu, [r(wu * 10 + 1), r(wu * 10 + 2, { elapsed_time: 1200 })]);
  });
  return { now, workunits };
}

/** expavg_credit · exp(−Δt · ln 2 / half-life): BOINC's decay of the stored pair to `at`. */
export function decayed(pair: { expavg_credit: number; expavg_time: number }, at: number): number {
  return pair.expavg_credit * Math.exp((-Math.max(at - pair.expavg_time, 0) * Math.LN2) / HALF_LIFE);
}
