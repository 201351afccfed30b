/**
 * A scheduled invocation: the variables parsed (src/env.ts), the trigger's jobs run one after
 * another (one failing does not stop the others), each with its environment's D1 bindings
 * metered, and ONE JSON log line for the invocation with every job's outcome, summary, time and
 * rows (docs/operations.md#logs). A job that failed, or a bad variable, fails the invocation
 * too, so the Cron Events of the dashboard show it.
 */
import { type D1Usage, meteredEnv, newD1Usage } from "../db/metered";
import { EnvError, type Settings, type WorkerEnv, parseEnv } from "../env";
import { type LogLevel, errorText, log } from "../log";
import { type Job, jobsFor, noJobMessage } from "./schedule";

interface JobOutcome {
  readonly name: string;
  readonly outcome: "ok" | "failed";
  /** The job's one-line summary, when ok. */
  readonly summary?: string;
  /** What it threw (the stack), when failed. */
  readonly error?: string;
  readonly duration_ms: number;
  readonly rows_read: number;
  readonly rows_written: number;
  readonly d1_queries: number;
  readonly d1_queries_without_meta: number;
}

/** The job's outcome for the log, and what it threw (the invocation rethrows it). */
async function runJob(job: Job, env: WorkerEnv, now: number, settings: Settings): Promise<{ outcome: JobOutcome; thrown?: unknown }> {
  const usage: D1Usage = newD1Usage();
  const started = Date.now();
  let ended: Pick<JobOutcome, "outcome" | "summary" | "error">;
  let thrown: unknown;
  try {
    ended = { outcome: "ok", summary: await job.run(meteredEnv(env, usage), now, settings) };
  } catch (e) {
    thrown = e;
    ended = { outcome: "failed", error: errorText(e, true) };
  }
  const outcome: JobOutcome = {
    name: job.name,
    ...ended,
    duration_ms: Date.now() - started,
    rows_read: usage.rowsRead,
    rows_written: usage.rowsWritten,
    d1_queries: usage.queries,
    d1_queries_without_meta: usage.queriesWithoutMeta,
  };
  return ended.outcome === "failed" ? { outcome, thrown } : { outcome };
}

/** The scheduled handler's work: `cron` is the trigger's expression ("" for a manual trigger), `scheduledTime` in ms. */
export async function runScheduled(cron: string, env: WorkerEnv, scheduledTime: number): Promise<void> {
  const started = Date.now();
  const line = (level: LogLevel, fields: Record<string, unknown>) =>
    log(level, { event: "cron", cron, scheduled_time: scheduledTime / 1000, ...fields, duration_ms: Date.now() - started });
  let settings: Settings;
  try {
    settings = parseEnv(env);
  } catch (e) {
    if (e instanceof EnvError) line("error", { error_code: "misconfigured", message: e.message, problems: e.problems, jobs: [] });
    throw e;
  }
  const jobs = jobsFor(cron);
  const outcomes: JobOutcome[] = [];
  const failures: unknown[] = [];
  for (const job of jobs) {
    const ran = await runJob(job, env, scheduledTime / 1000, settings);
    outcomes.push(ran.outcome);
    if (ran.outcome.outcome === "failed") failures.push(ran.thrown);
  }
  const sum = (key: "rows_read" | "rows_written") => outcomes.reduce((n, o) => n + o[key], 0);
  line(failures.length > 0 ? "error" : jobs.length === 0 ? "warn" : "info", {
    ...(jobs.length === 0 ? { message: noJobMessage(cron) } : {}),
    rows_read: sum("rows_read"),
    rows_written: sum("rows_written"),
    jobs: outcomes,
  });
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} scheduled job(s) failed (the cron log line names them)`);
}
