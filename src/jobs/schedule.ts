/**
 * What the cron triggers run. Each job names its cron expression; wrangler.jsonc lists the
 * same expressions (a test keeps the two in step). A manual trigger without an expression
 * (`curl localhost:8787/cdn-cgi/handler/scheduled`) runs every job once, in order; a trigger
 * whose expression names no job (one added in the dashboard) runs nothing and its log line says
 * why (src/jobs/cron.ts), so a stray every-minute trigger cannot run retention and the exports
 * every minute.
 */
import type { Db } from "../db/client";
import { DEFAULT_BINDING, inEachProjectDatabase, projectDatabase, projectDatabases } from "../db/project-db";
import type { Env, Settings } from "../env";
import { errorText, log } from "../log";
import { dayOf } from "../credit/history";
import { refreshAllFpopsPercentiles } from "./fpops-percentiles";
import { refreshSnapshots } from "./kv-refresh";
import { publishLeaderboards } from "./leaderboard-pages";
import { reconcileAllAccountManagers } from "./reconcile";
import { publishNeutrality } from "../services/neutrality";
import { publishPlanClassScales } from "../services/plan-class-scales";
import { describeFairAlarm, rescaleAllProjects } from "../services/rescale";
import { exportAllStats } from "../services/stats-export";
import { foldAllAppCredit, moveAllHistory } from "./history-move";
import { describePurge, retentionSettings, runRetention } from "./retention";

export interface Job {
  readonly name: string;
  readonly cron: string;
  /** Returns a one-line summary for the cron's log line. */
  run(env: Env, now: number, settings: Settings): Promise<string>;
}

export const JOBS: readonly Job[] = [
  {
    name: "rescale",
    cron: "*/10 * * * *",
    run: async (env, now) => {
      const { values, failed } = await inEachProjectDatabase(env, "job", (db) =>
        rescaleAllProjects(db, projectDatabase(env, DEFAULT_BINDING), now),
      );
      const alarms = values.flatMap((v) => v.alarms);
      // The operator's alarm (docs/fair-credit.md#the-alarm-and-the-re-base): one line per app held at its anchor's limit.
      for (const a of alarms) {
        log("warn", {
          event: "fair_alarm",
          message: describeFairAlarm(a),
          project_id: a.projectId,
          app: a.app,
          s: a.level,
          s_raw: a.rawLevel,
          s_ref: a.sRef,
        });
      }
      const n = values.reduce((total, v) => total + v.projects, 0);
      return `rescaled ${n} projects${alarms.length > 0 ? `; ${alarms.length} apps held at their fair anchor's limit` : ""}${skippedNote(failed)}`;
    },
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
      // One database at a time: the runs share the KV write budget of the Worker's invocation.
      const skipped: string[] = [];
      for (const { binding } of await projectDatabases(env)) {
        const one = await inEachOne(env, binding, "kv-refresh", () => refreshSnapshots(env, now, undefined, binding));
        if (one === null) {
          skipped.push(binding);
          continue;
        }
        r.written += one.written;
        r.failed += one.failed;
        r.left += one.left;
      }
      return `wrote ${r.written} KV snapshots, ${r.failed} failed, ${r.left} marks left for the next run${skippedNote(skipped)}`;
    },
  },
  {
    // Finished history days reach a project's history databases within a minute.
    name: "history-move",
    cron: "* * * * *",
    run: async (env) => {
      // A database that fails is logged and skipped; the others move.
      const { values, failed } = await inEachProjectDatabase(env, "history-move", async (db, binding) => {
        const moved = await moveAllHistory(env, db, binding);
        return moved.passes > 0 ? `${binding}: ${moved.buckets} history buckets of ${moved.passes} passes` : null;
      });
      const lines = values.filter((v) => v !== null);
      return (lines.length > 0 ? `moved ${lines.join("; ")}` : "no history to move") + skippedNote(failed);
    },
  },
  {
    // Folding an hour of passes writes each per-app row once; reads add what is still queued.
    name: "app-credit-fold",
    cron: "50 * * * *",
    run: (env) =>
      inEachDatabase(env, async (db) => {
        const folded = await foldAllAppCredit(db);
        return `folded ${folded.passes} passes into ${folded.rows} per-app credit rows`;
      }),
  },
  {
    // Every board's pages below the top ones: each board about hourly, spread over runs within
    // the KV budget of an invocation (its own trigger, apart from the minute refresh's).
    name: "leaderboard-pages",
    cron: "5,15,25,35,45,55 * * * *",
    run: async (env, now) => {
      const r = await sumOverBindings(env, ["boards", "written", "failed"], (binding) => publishLeaderboards(env, now, undefined, binding));
      return `wrote ${r.written} leaderboard pages of ${r.boards} boards, ${r.failed} failed`;
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
    run: (env, now) => publishPlanClassScales(env, env.KV, now),
  },
  {
    // Daily: the index reads a 30-day window, so a day moves it little.
    name: "neutrality",
    cron: "25 0 * * *",
    run: (env, now) => publishNeutrality(env, env.KV, now),
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
    run: (env, now, settings) => inEachDatabase(env, async (db) => describePurge(await runRetention(db, now, retentionSettings(settings)))),
  },
];

const skippedNote = (failed: readonly string[]) => (failed.length > 0 ? `; skipped database(s) ${failed.join(", ")} (failed, logged)` : "");

/** `run` for one database; a failure is logged and answered null, so the other databases still run. */
async function inEachOne<T>(env: Env, binding: string, what: string, run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (e) {
    log("error", { event: "database_skipped", what, binding, error: errorText(e) });
    return null;
  }
}

/** A job that takes a binding, run for each database that holds projects in turn, the counts it reports summed. */
async function sumOverBindings<K extends string>(
  env: Env,
  counts: readonly K[],
  job: (binding: string) => Promise<Record<K, number>>,
): Promise<Record<K, number>> {
  const total = Object.fromEntries(counts.map((k) => [k, 0])) as Record<K, number>;
  for (const { binding } of await projectDatabases(env)) {
    const one = await job(binding);
    for (const k of counts) total[k] += one[k];
  }
  return total;
}

/** A job run over every database that holds projects, its log lines joined; a database that fails is logged and skipped. */
async function inEachDatabase(env: Env, job: (db: Db) => Promise<string>): Promise<string> {
  // Each line names its database (DB: …; DB_LARGE: …).
  const { values, failed } = await inEachProjectDatabase(env, "job", async (db, binding) => `${binding}: ${await job(db)}`);
  return values.join("; ") + skippedNote(failed);
}

/** The cron of a manual trigger: wrangler dev's /cdn-cgi/handler/scheduled without `?cron=`. */
const MANUAL_TRIGGER_CRON = "";

/** The jobs of a trigger's expression: none for one no job names (src/jobs/cron.ts logs why). */
export function jobsFor(cron: string): readonly Job[] {
  if (cron === MANUAL_TRIGGER_CRON) return JOBS;
  return JOBS.filter((j) => j.cron === cron);
}

/** Why a trigger ran nothing, for its log line. */
export function noJobMessage(cron: string): string {
  return `cron "${cron}" names no job (wrangler.jsonc triggers: ${[...new Set(JOBS.map((j) => j.cron))].join(", ")}); nothing run`;
}
