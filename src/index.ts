import { database } from "./db/client";
import { app } from "./app";
import type { Env } from "./env";
import { rescaleAllProjects } from "./jobs/rescale";

/** Cron (every 10 minutes): the feeder's rescale for every project. */
async function scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
  ctx.waitUntil(
    rescaleAllProjects(database(env.DB)).then((n) => console.log(`rescaled ${n} projects`)),
  );
}

export default {
  fetch: app.fetch,
  scheduled,
} satisfies ExportedHandler<Env>;
