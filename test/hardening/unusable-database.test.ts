/**
 * Issue 24 findings 7 and 10 (issue 23 part 4): a bound database that is unusable (here
 * DB_UNMIGRATED, bound by vitest.config.ts and never migrated, named by a project's registry
 * row) never takes the others down: every job and cross-database read serves the databases
 * that answer and logs the one that failed; GET /health names it (503).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { kvKeys } from "../../src/snapshots/keys";
import { setupProject, validPass } from "../support/api-helpers";
import { PLAN_CLASS_CRON, STATS_CRON, clockNow, runCron } from "../central/helpers";
import { request } from "../support/api";
import { type LogLine, captureLogs } from "../support/logs";

const CPID = "0123456789abcdef0123456789abcdef";
const EVERY_CRON = ["*/10 * * * *", "* * * * *", "30 0 * * *", PLAN_CLASS_CRON, STATS_CRON, "50 * * * *"];

/** A registry row for a project whose rows live in DB_UNMIGRATED (created before that database was lost, say). */
async function projectInUnmigratedDatabase() {
  const slug = `lost-${Math.random().toString(36).slice(2, 8)}`;
  await env.DB.prepare("INSERT INTO projects (slug, name, created_at, database) VALUES (?, 'Lost', 0, 'DB_UNMIGRATED')").bind(slug).run();
}

describe("a bound database without the migrations", () => {
  it("every job still runs in the other databases, GET /v1/cpid answers from them, and each failure is logged with the binding", async () => {
    const p = await setupProject("healthy");
    await p.api.ok("PUT", "/users/10", { cpid: CPID, stats_export: true });
    await p.api.ok("POST", "/passes", validPass());
    await projectInUnmigratedDatabase();
    // Each failure is a JSON log line (docs/operations.md#logs) naming the binding.
    const skipped = (lines: LogLine[], what: string) =>
      lines.filter((l) => l.event === "database_skipped" && l.level === "error" && l.what === what && l.binding === "DB_UNMIGRATED");

    const reads = await captureLogs(async () => {
      const cpid = await request("GET", `/v1/cpid/${CPID}`);
      expect(cpid.status, JSON.stringify(cpid.body)).toBe(200);
      expect(cpid.body.projects.map((x: { project: string }) => x.project)).toEqual([p.slug]);
      // An answer a failed database left partial is not kept in the cache: the next read asks again.
      expect((await request("GET", `/v1/cpid/${CPID}`)).status).toBe(200);
    });
    expect(skipped(reads.lines, "GET /v1/cpid")).toHaveLength(2);

    const at = clockNow();
    const jobs = await captureLogs(async () => {
      for (const cron of EVERY_CRON) await runCron(cron, at);
    });
    // The plan-class table was published (version = the run's time), the minute refresh wrote
    // the healthy project's snapshot, and the daily export ran for it.
    const table = await request("GET", "/v1/plan-classes");
    expect(table.status, JSON.stringify(table.body)).toBe(200);
    expect(table.body.version).toBe(at);
    expect(await env.KV.get(kvKeys.project(p.slug))).not.toBeNull();
    expect(skipped(jobs.lines, "job").length).toBeGreaterThan(0);
    // Each run's cron line says which database its jobs skipped.
    const summaries = jobs.lines.filter((l) => l.event === "cron").flatMap((l) => l.jobs as { summary?: string }[]);
    expect(summaries.some((j) => j.summary?.includes("skipped database(s) DB_UNMIGRATED"))).toBe(true);
  });
});

describe("GET /health", () => {
  it("checks every bound database and KV: 503 naming the database without the schema, the others ok", async () => {
    const res = await request("GET", "/health");
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.ok).toBe(false);
    const byName = Object.fromEntries(res.body.checks.map((c) => [c.name, c]));
    expect(Object.keys(byName).sort()).toEqual(["DB", "DB_HISTORY_1", "DB_HISTORY_2", "DB_LARGE", "DB_UNMIGRATED", "KV"]);
    expect(byName.DB).toEqual({ name: "DB", ok: true });
    expect(byName.DB_LARGE).toEqual({ name: "DB_LARGE", ok: true });
    expect(byName.KV).toEqual({ name: "KV", ok: true });
    expect(byName.DB_UNMIGRATED!.ok).toBe(false);
    expect(byName.DB_UNMIGRATED!.error).toContain("apply the migrations");
  });

  it("is declared in the OpenAPI document with both answers", async () => {
    const doc = await request("GET", "/openapi.json");
    expect(Object.keys(doc.body.paths["/health"]!.get!.responses)).toEqual(expect.arrayContaining(["200", "503"]));
  });
});
