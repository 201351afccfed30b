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

/** Waits until a read's fill (done after the answer, in waitUntil) has reached KV. */
export async function kvHolds(key: string, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const held = await env.KV.get(key);
    if (held !== null) return held;
    if (Date.now() > deadline) throw new Error(`KV never got ${key}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
