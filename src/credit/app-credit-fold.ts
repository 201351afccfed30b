/**
 * Per-app credit (BOINC's credit_user / credit_team) folded from the pass's queue: each queued
 * run is what one pass granted one (holder, app) row, all at the pass's `now`, and applying the
 * runs in queue order gives exactly what applying them pass by pass gave (grant_credit's
 * update for the first grant of the run, credit·ln2/7 for the rest: stat-updates.ts
 * recentAverageRun). Folding many passes writes each row once.
 */
import { type RecentAverage, TAYLOR_RATE, updateRecentAverage } from "./recent-average";

export interface AppCreditRow {
  readonly total: number;
  readonly expavg: number;
  readonly expavgTime: number;
  readonly njobs: number;
}

export interface AppCreditRun {
  readonly now: number;
  readonly firstCredit: number;
  readonly firstStart: number;
  readonly restCredit: number;
  readonly jobs: number;
}

/** The row after one run; a row not there yet starts its RAC clock at the run's `now` (docs/spec/edge-cases.md#e14). */
export function applyAppCreditRun(row: AppCreditRow | undefined, run: AppCreditRun): AppCreditRow {
  const start = row ?? { total: 0, expavg: 0, expavgTime: run.now, njobs: 0 };
  const ra: RecentAverage = updateRecentAverage(
    { expavgCredit: start.expavg, expavgTime: start.expavgTime },
    run.now,
    run.firstStart,
    run.firstCredit,
  );
  return {
    total: start.total + run.firstCredit + run.restCredit,
    expavg: ra.expavgCredit + run.restCredit * TAYLOR_RATE,
    expavgTime: ra.expavgTime,
    njobs: start.njobs + run.jobs,
  };
}
