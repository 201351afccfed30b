/**
 * Issue 24 finding 9: a cron trigger whose expression names no job (one added in the
 * dashboard) runs nothing and logs why; the manual local trigger (no expression) still runs
 * every job, as docs/operations.md shows.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { jobsFor } from "../../src/jobs/schedule";
import { kvKeys } from "../../src/snapshots/keys";
import { setupProject, validPass } from "../support/api-helpers";
import { runCron } from "../support/cron";
import { captureLogs } from "../support/logs";

describe("an unknown cron", () => {
  it("runs no job (the minute refresh writes no snapshot) and logs the expression it did not know", async () => {
    const p = await setupProject("cron");
    await p.api.ok("POST", "/passes", validPass());
    const { lines } = await captureLogs(() => runCron("*/5 * * * *"));
    expect(await env.KV.get(kvKeys.project(p.slug))).toBeNull();
    // The run's one log line (docs/operations.md#logs) is a warning naming the expression.
    expect(lines).toEqual([expect.objectContaining({ event: "cron", level: "warn", console: "warn", cron: "*/5 * * * *", jobs: [] })]);
    expect(lines[0]!.message).toContain('cron "*/5 * * * *" names no job');
    expect(jobsFor("*/5 * * * *")).toEqual([]);

    // The manual trigger (no expression) runs every job, the minute refresh among them.
    await runCron("");
    expect(await env.KV.get(kvKeys.project(p.slug))).not.toBeNull();
  });
});
