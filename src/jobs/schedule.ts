/**
 * What the cron triggers run. Each job names its cron expression; wrangler.jsonc lists the
 * same expressions (a test keeps the two in step). A trigger whose cron matches no job (a
 * manual `curl localhost:8787/cdn-cgi/handler/scheduled`) runs every job once, in order.
 */
import type { Db } from "../db/client";
import { DEFAULT_BINDING, allDatabases, databaseBindings, projectDatabase } from "../db/project-db";
import type { Env } from "../env";
import { dayOf } from "../credit/history";
import { refreshAllFpopsPercentiles } from "./fpops-percentiles";
import { refreshSnapshots } from "./kv-refresh";
import { reconcileAllAccountManagers } from "./reconcile";
import { publishNeutrality } from "../services/neutrality";
import { publishPlanClassScales } from "../services/plan-class-scales";
import { rescaleAllProjects } from "../services/rescale";
import { exportAllStats } from "../services/stats-export";
import { describePurge, retentionSettings, runRetention } from "./retention";

export interface Job {
  readonly name: string;
  readonly cron: string;
  /** Returns a one-line summary for the log. */
  run(env: Env, now: number): Promise<string>;
}

export const JOBS: readonly Job[] = [
  {
    name: "rescale",
    cron: "*/10 * * * *",
    run: async (env) => `rescaled ${await sum(env, (db) => rescaleAllProjects(db, projectDatabase(env, DEFAULT_BINDING)))} projects`,
  },
  {
    // Trickle credit's FLOPS bounds move slowly: with the rescale, not per message.
    name: "fpops-percentiles",
    cron: "*/10 * * * *",
    run: (env, now) => inEachDatabase(env, (db) => refreshAllFpopsPercentiles(db, now)),
  },
  {
    // After rescale, so that a manual run publishes the new scales at once.
    name: "kv-refresh",
    cron: "* * * * *",
    run: async (env, now) => {
      const r = { written: 0, failed: 0, left: 0 };
      for (const binding of databaseBindings(env)) {
        const one = await refreshSnapshots(env, now, undefined, binding);
        r.written += one.written;
        r.failed += one.failed;
        r.left += one.left;
      }
      return `wrote ${r.written} KV snapshots, ${r.failed} failed, ${r.left} marks left for the next run`;
    },
  },
  {
    // Shortly after midnight UTC: yesterday is complete.
    name: "reconcile-account-managers",
    cron: "30 0 * * *",
    run: (env, now) => reconcileAllAccountManagers(env, dayOf(now) - 1),
  },
  {
    // Daily: the registry moves slowly, and each run is a version a project may pin.
    name: "plan-class-scales",
    cron: "20 0 * * *",
    run: (env, now) => publishPlanClassScales(allDatabases(env), env.KV, now),
  },
  {
    // Daily: the index reads a 30-day window, so a day moves it little.
    name: "neutrality",
    cron: "25 0 * * *",
    run: (env, now) => publishNeutrality(allDatabases(env), env.KV, now),
  },
  {
    // Daily, as BOINC's db_dump task.
    name: "stats-export",
    cron: "40 0 * * *",
    run: (env, now) => inEachDatabase(env, (db) => exportAllStats(db, env.KV, now)),
  },
  {
    // Hourly: a large project's day of results is purged in 24 small runs, not one big one.
    name: "retention",
    cron: "50 * * * *",
    run: (env, now) => inEachDatabase(env, async (db) => describePurge(await runRetention(db, now, retentionSettings(env)))),
  },
];

/** A per-project job run over every database (each handles the projects that live in it), counts summed. */
async function sum(env: Env, job: (db: Db) => Promise<number>): Promise<number> {
  let n = 0;
  for (const db of allDatabases(env)) n += await job(db);
  return n;
}

/** A job run over every database in turn (each handles the projects that live in it), its log lines joined. */
async function inEachDatabase(env: Env, job: (db: Db) => Promise<string>): Promise<string> {
  const lines: string[] = [];
  for (const db of allDatabases(env)) lines.push(await job(db));
  return lines.join("; ");
}

export function jobsFor(cron: string): readonly Job[] {
  const matching = JOBS.filter((j) => j.cron === cron);
  return matching.length > 0 ? matching : JOBS;
}

/** Runs the jobs one after another; one job failing does not stop the others. */
export async function runJobs(jobs: readonly Job[], env: Env, now: number): Promise<void> {
  const failures: unknown[] = [];
  for (const job of jobs) {
    try {
      console.log(`${job.name}: ${await job.run(env, now)}`);
    } catch (err) {
      console.error(`${job.name} failed:`, err);
      failures.push(err);
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} scheduled job(s) failed`);
}
