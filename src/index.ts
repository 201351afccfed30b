import { app } from "./app";
import type { Env } from "./env";
import { jobsFor, runJobs } from "./jobs/schedule";

/** Cron: the jobs of the trigger's schedule (src/jobs/schedule.ts). */
async function scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
  ctx.waitUntil(runJobs(jobsFor(controller.cron), env, controller.scheduledTime / 1000));
}

export default {
  fetch: app.fetch,
  scheduled,
} satisfies ExportedHandler<Env>;
