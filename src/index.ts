import { app } from "./app";
import type { WorkerEnv } from "./env";
import { runScheduled } from "./jobs/cron";

/** Cron: the jobs of the trigger's schedule (src/jobs/schedule.ts), one log line for the run (src/jobs/cron.ts). */
async function scheduled(controller: ScheduledController, env: WorkerEnv, ctx: ExecutionContext): Promise<void> {
  ctx.waitUntil(runScheduled(controller.cron, env, controller.scheduledTime));
}

export default {
  fetch: app.fetch,
  scheduled,
} satisfies ExportedHandler<WorkerEnv>;
