/**
 * A project in a database of its own (wrangler.jsonc DB_LARGE): it ingests, its public reads,
 * leaderboards, cpid totals and stats exports work, it appears in the list of projects next to
 * a project of the default database, and the default database holds none of its rows (only
 * the registry's: its project row and its token).
 */
import { historyDays } from "../support/history";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expectError, setupProject } from "../support/api-helpers";
import { STATS_CRON, clockNow, getRaw, runCron } from "../central/helpers";
import { daysAgo, passFor } from "../reads/fixtures";
import { ADMIN_TOKEN, request } from "../support/api";
import { runCron as runKvRefresh } from "../support/cron";
import { projectIdOf } from "../support/project-id";

const CPID = "00112233445566778899aabbccddeeff";
/** Every table with a project_id, but the registry's (projects, project_tokens). */
const PROJECT_TABLES = [
  "apps",
  "app_versions",
  "host_app_versions",
  "hosts",
  "users",
  "teams",
  "credit_users",
  "credit_teams",
  "workunits",
  "results",
  "credit_history",
  "credit_history_monthly",
  "kv_marks",
  "audit_log",
];

async function rowsOf(d1: D1Database, projectId: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of PROJECT_TABLES) {
    counts[table] = (await d1.prepare(`SELECT count(*) AS n FROM ${table} WHERE project_id = ?`).bind(projectId).first<number>("n"))!;
  }
  return counts;
}

const publicGet = <P extends string>(path: P) => request("GET", path);

describe("a project in its own database", () => {
  it("works end to end while the default database holds none of its rows", async () => {
    const large = await setupProject("large", { database: "DB_LARGE" });
    const small = await setupProject("small");
    for (const p of [large, small]) await p.api.ok("PUT", "/users/10", { name: "Vol", cpid: CPID });
    const now = daysAgo(1);
    const credited = await large.api.ok("POST", "/passes", passFor(now, 1, { host: 10, user: 10 }, 2));
    await small.api.ok("POST", "/passes", passFor(now, 1, { host: 10, user: 10 }, 1));
    const largeUser = await large.api.ok("GET", "/users/10");
    const smallUser = await small.api.ok("GET", "/users/10");
    const granted = credited.workunits.flatMap((w) => w.results).reduce((s: number, r) => s + r.granted_credit, 0);
    expect(largeUser.total_credit).toBeCloseTo(granted, 9);

    // Public reads (no token): from D1 on a KV miss, then from the snapshots the cron writes.
    await runKvRefresh();
    const user = await publicGet(`/v1/projects/${large.slug}/users/10`);
    expect(user.status).toBe(200);
    expect(user.body.total_credit).toBe(largeUser.total_credit);
    const history = await publicGet(`/v1/projects/${large.slug}/users/10/history?days=3`);
    expect(history.body.days.reduce((s: number, d) => s + d.credit, 0)).toBeCloseTo(granted, 9);
    const top = await publicGet(`/v1/projects/${large.slug}/top/users`);
    expect(top.status).toBe(200);
    expect(JSON.stringify(top.body)).toContain(`"total_credit":${largeUser.total_credit}`);
    const project = await publicGet(`/v1/projects/${large.slug}`);
    expect(project.body.total_credit).toBeCloseTo(granted, 9);

    // The list of projects and the cpid totals go across both databases.
    const list = await publicGet("/v1/projects");
    const slugs = list.body.projects.map((p) => p.slug);
    expect(slugs).toContain(large.slug);
    expect(slugs).toContain(small.slug);
    const cpid = await publicGet(`/v1/cpid/${CPID}`);
    expect(cpid.status).toBe(200);
    expect(cpid.body.projects.map((p) => p.project).sort()).toEqual([large.slug, small.slug].sort());
    expect(cpid.body.total_credit).toBeCloseTo(largeUser.total_credit + smallUser.total_credit, 9);

    // The daily stats export writes the large project's files from its own database.
    await runCron(STATS_CRON, clockNow());
    const exported = await getRaw(`/v1/projects/${large.slug}/stats/tables.xml`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("x-stats-source")).toBe("kv");
    expect(await exported.text()).toMatch(/<nusers_total>1<\/nusers_total>/);

    const id = await projectIdOf(large.slug);
    const inDefault = await rowsOf(env.DB, id);
    expect(
      Object.values(inDefault).every((n) => n === 0),
      JSON.stringify(inDefault),
    ).toBe(true);
    const inOwn = await rowsOf(env.DB_LARGE, id);
    for (const table of ["apps", "hosts", "users", "results", "workunits", "audit_log"]) {
      expect(inOwn[table], table).toBeGreaterThan(0);
    }
    // Its history: today's day is kept on the holders' rows there (src/db/history-transitions.ts).
    expect((await historyDays(env.DB_LARGE, id)).length).toBeGreaterThan(0);
    // The registry row names the binding; the project's own copy (same id) lives there.
    expect(await env.DB.prepare("SELECT database FROM projects WHERE id = ?").bind(id).first("database")).toBe("DB_LARGE");
    expect(await env.DB_LARGE.prepare("SELECT database FROM projects WHERE id = ?").bind(id).first("database")).toBeNull();
    // And the small project's rows stay in the default database.
    const smallId = await projectIdOf(small.slug);
    expect(Object.values(await rowsOf(env.DB_LARGE, smallId)).every((n) => n === 0)).toBe(true);
  });

  it("a database the deployment does not bind is a 422 and creates nothing", async () => {
    const slug = `nodb-${Math.random().toString(36).slice(2, 8)}`;
    const res = await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug, name: "x", database: "DB_NOPE" } });
    expectError(res, 422, "unknown_database");
    expect(await env.DB.prepare("SELECT count(*) AS n FROM projects WHERE slug = ?").bind(slug).first("n")).toBe(0);
  });
});
