/** Runs the Worker's scheduled handler the way a cron trigger does, and waits for it. */
import { env } from "cloudflare:workers";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";

/** The minute trigger by default (the KV refresh); "" runs every job, like a manual trigger. */
export async function runCron(cron = "* * * * *", scheduledTime = Date.now()): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron, scheduledTime }), env, ctx);
  await waitOnExecutionContext(ctx);
}
