import { app } from "./app";
import type { Env } from "./env";

async function scheduled(
  _controller: ScheduledController,
  _env: Env,
  _ctx: ExecutionContext,
): Promise<void> {
  // Cron (*/10 * * * *): nothing yet.
}

export default {
  fetch: app.fetch,
  scheduled,
} satisfies ExportedHandler<Env>;
