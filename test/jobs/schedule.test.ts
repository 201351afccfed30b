import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import wranglerConfig from "../../wrangler.jsonc?raw";
import { projectDatabases } from "../../src/db/project-db";
import { createProject } from "../support/api";
import { parseEnv } from "../../src/env";
import { JOBS, jobsFor } from "../../src/jobs/schedule";

/** wrangler.jsonc is JSON with // comments (none inside strings that matter here). */
function configuredCrons(): string[] {
  const json = wranglerConfig.replace(/^\s*\/\/.*$/gm, "");
  return JSON.parse(json).triggers.crons;
}

describe("scheduled jobs", () => {
  it("wrangler.jsonc triggers exactly the crons the jobs name", () => {
    expect(new Set(configuredCrons())).toEqual(new Set(JOBS.map((j) => j.cron)));
  });

  it("a trigger runs its own jobs; a manual trigger (no cron expression) runs every job in order", () => {
    for (const job of JOBS) expect(jobsFor(job.cron)).toContain(job);
    expect(jobsFor("").map((j) => j.name)).toEqual(JOBS.map((j) => j.name));
  });

  it("a job run over every database says which database each part of its log line is about", async () => {
    // Jobs visit the databases that hold projects (a bound one no project names is skipped).
    await createProject("sched", { database: "DB_LARGE" });
    const retention = JOBS.find((j) => j.name === "retention")!;
    const line = await retention.run(env, Date.now() / 1000, parseEnv(env));
    const bindings = (await projectDatabases(env)).map((d) => d.binding);
    expect(bindings).toEqual(expect.arrayContaining(["DB", "DB_LARGE"]));
    expect([...line.matchAll(/(?:^|; )([A-Z_]+): purged \d+ results/g)].map((m) => m[1])).toEqual(bindings);
  });
});
