/**
 * Issue 24 finding 9: a cron trigger whose expression names no job (one added in the
 * dashboard) runs nothing and logs why; the manual local trigger (no expression) still runs
 * every job, as docs/operations.md shows.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { jobsFor } from "../../src/jobs/schedule";
import { kvKeys } from "../../src/snapshots/keys";
import { setupProject, validPass } from "../support/api-helpers";
import { runCron } from "../support/cron";

afterEach(() => vi.restoreAllMocks());

describe("an unknown cron", () => {
  it("runs no job (the minute refresh writes no snapshot) and logs the expression it did not know", async () => {
    const warn = vi.spyOn(console, "warn");
    const p = await setupProject("cron");
    await p.api.ok("POST", "/passes", validPass());
    await runCron("*/5 * * * *");
    expect(await env.KV.get(kvKeys.project(p.slug))).toBeNull();
    expect(warn.mock.calls.map((c) => c.join(" ")).join("\n")).toContain('"*/5 * * * *" names no job');
    expect(jobsFor("*/5 * * * *")).toEqual([]);

    // The manual trigger (no expression) runs every job, the minute refresh among them.
    await runCron("");
    expect(await env.KV.get(kvKeys.project(p.slug))).not.toBeNull();
  });
});
