/**
 * A large pass stalls nobody (issue 36, finding 1): every walk of a pass and of a pass batch
 * finds each step's row by its key, so a pass of thousands of samples on one app version is
 * written in time linear in its rows (docs/storage.md#walks-are-linear), and a pass over the
 * documented maximum of results is refused before anything runs. The figures are the bench's
 * (bench/big-pass.ts); here, the numbers a large pass leaves are checked against the pure
 * engine's in-memory ledger, and each walk's query plan against a scan per step.
 */
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { EMPTY_AVERAGE, type Average } from "../../src/credit/average";
import { AV_AVERAGE } from "../../src/credit/constants";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { hostAppVersionChangeWrites } from "../../src/db/host-app-version-writes";
import { averageWalk } from "../../src/db/version-writes";
import { passBatchWrites } from "../../src/db/pass-batch-writes";
import { appVersions } from "../../src/db/schema";
import { averageUpdate } from "../../src/db/stat-updates";
import { runBatch } from "../../src/db/batch";
import { database } from "../../src/db/client";
import type { PassEffects } from "../../src/credit/pass";
import { MAX_RESULTS_PER_PASS, WorkunitSchema } from "../../src/routes/passes/passes.schemas";
import { engineWorkunits } from "../../src/routes/passes/passes.service";
import { type PassBody, type ResultBody, expectError, result, setupProject, workunit } from "../support/api-helpers";
import { MemoryLedger } from "../support/memory-ledger";
import { relativeError } from "../support/trace";
import { DAY, daysAgo } from "../reads/fixtures";

const RESULTS_PER_WORKUNIT = 1000;

/** Workunit `wu`'s `n` valid results on app version 1, each on its own host (`host(j)`), runtimes spread so each is its own PFC sample. */
function bigWorkunit(wu: number, n: number, host: (j: number) => number, now: number) {
  return workunit(
    wu,
    Array.from({ length: n }, (_, j): ResultBody => {
      const h = host(j);
      return result(wu * RESULTS_PER_WORKUNIT + j, {
        host_id: h,
        user_id: h,
        team_id: 1 + (h % 7),
        elapsed_time: 600 + ((j * 37) % 1000),
        sent_time: now - DAY,
        received_time: now - 60,
      });
    }),
  );
}

/** The ledger the engine keeps in memory, set up as setupProject sets up a project. */
function ledger(): MemoryLedger {
  const l = new MemoryLedger();
  l.putApp({ name: "a", hostScaleCheck: false });
  l.putApp({ name: "g", hostScaleCheck: true, minAvgPfc: 1.5, targetNresults: 2 });
  l.putVersion({ id: 1, app: "a", platform: "linux", planClass: "", versionNum: 1 });
  l.putVersion({ id: 2, app: "a", platform: "linux", planClass: "intel", versionNum: 1 });
  l.putVersion({ id: 3, app: "g", platform: "linux", planClass: "", versionNum: 5 });
  return l;
}

function engineInput(body: PassBody) {
  const parsed = body.workunits.map((w) => WorkunitSchema.parse(w));
  return engineWorkunits(
    parsed,
    parsed.map((w) => w.results.map((r) => JSON.stringify([w.id, r]))),
  );
}

async function versionRow(slug: string) {
  return (await env.DB.prepare(
    `SELECT v.pfc_n, v.pfc_avg, v.expavg_credit, v.expavg_time FROM app_versions v JOIN projects p ON p.id = v.project_id
     WHERE p.slug = ? AND v.id = 1`,
  )
    .bind(slug)
    .first<{ pfc_n: number; pfc_avg: number; expavg_credit: number; expavg_time: number }>())!;
}

/** The stored app version 1 equals the ledger's, to the parity traces' 1e-9. */
async function expectVersionAsLedger(slug: string, l: MemoryLedger): Promise<void> {
  const row = await versionRow(slug);
  const v = l.versions.get(1)!;
  expect(v.pfc.n).toBeGreaterThan(2000);
  expect(row.pfc_n).toBe(v.pfc.n);
  expect(relativeError(row.pfc_avg, v.pfc.avg)).toBeLessThanOrEqual(1e-9);
  expect(relativeError(row.expavg_credit, v.rac.expavgCredit)).toBeLessThanOrEqual(1e-9);
  expect(row.expavg_time).toBe(v.rac.expavgTime);
}

const dialect = new SQLiteAsyncDialect();

/** EXPLAIN QUERY PLAN's lines under each recursive step of a statement (the plan is a tree of id and parent). */
async function recursiveSteps(statement: ReturnType<typeof sql>): Promise<string[]> {
  const q = dialect.sqlToQuery(statement);
  const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${q.sql}`)
    .bind(...q.params)
    .all<{ id: number; parent: number; detail: string }>();
  const under = new Set(plan.results.filter((r) => r.detail.startsWith("RECURSIVE STEP")).map((r) => r.id));
  const lines: string[] = [];
  for (const r of plan.results) {
    // A table of steps is materialized (its json_each scanned) once, where the step first reads it.
    if (under.has(r.parent) && !r.detail.startsWith("MATERIALIZE")) {
      under.add(r.id);
      lines.push(r.detail);
    }
  }
  return lines;
}

describe("a pass at the maximum of results", () => {
  it(`${MAX_RESULTS_PER_PASS} results on one app version leave the engine's numbers`, { timeout: 120_000 }, async () => {
    const now = daysAgo(2);
    const { api, slug } = await setupProject("big");
    const wus = MAX_RESULTS_PER_PASS / RESULTS_PER_WORKUNIT;
    const body: PassBody = {
      now,
      workunits: Array.from({ length: wus }, (_, i) => bigWorkunit(i + 1, RESULTS_PER_WORKUNIT, (j) => 1 + i * 1000 + j, now)),
    };
    await api.ok("POST", "/passes", body);
    const l = ledger();
    expect(l.pass(now, engineInput(body)).conflicts).toEqual([]);
    await expectVersionAsLedger(slug, l);
  });

  it("a batch of passes with thousands of samples on one app version leaves the engine's numbers", { timeout: 120_000 }, async () => {
    const t = daysAgo(3);
    const { api, slug } = await setupProject("big-batch");
    // Four passes an hour apart, 1,000 results each; hosts repeat across them.
    const passes: PassBody[] = Array.from({ length: 4 }, (_, k) => {
      const now = t + k * 3600;
      return { now, workunits: [bigWorkunit(k + 1, RESULTS_PER_WORKUNIT, (j) => 1 + ((j + 250 * k) % 1500), now)] };
    });
    await api.ok("POST", "/pass-batches", { passes });
    const l = ledger();
    for (const p of passes) expect(l.pass(p.now!, engineInput(p)).conflicts).toEqual([]);
    await expectVersionAsLedger(slug, l);
  });

  it(`${MAX_RESULTS_PER_PASS + 1} results in a pass, or in a batch's passes, are 413 naming the limit; nothing is written`, async () => {
    const now = daysAgo(1);
    const { api, slug } = await setupProject("big-over");
    const over = (first: number) =>
      Array.from({ length: MAX_RESULTS_PER_PASS / RESULTS_PER_WORKUNIT }, (_, i) =>
        bigWorkunit(first + i, RESULTS_PER_WORKUNIT, (j) => 1 + j, now),
      );
    const pass = { now, workunits: [...over(1), bigWorkunit(99, 1, () => 5, now)] };
    const e = expectError(await api.raw("POST", "/passes", pass), 413, "too_large");
    expect(e.message).toContain(`at most ${MAX_RESULTS_PER_PASS}`);
    // Each pass within the limit, both over it together.
    const half = MAX_RESULTS_PER_PASS / RESULTS_PER_WORKUNIT / 2 + 1;
    const batch = {
      passes: [0, 1].map((k) => ({
        now,
        workunits: Array.from({ length: half }, (_, i) => bigWorkunit(100 + k * 10 + i, RESULTS_PER_WORKUNIT, (j) => 1 + j, now)),
      })),
    };
    const b = expectError(await api.raw("POST", "/pass-batches", batch), 413, "too_large");
    expect(b.message).toContain(`at most ${MAX_RESULTS_PER_PASS}`);
    const written = await env.DB.prepare("SELECT count(*) AS n FROM results r JOIN projects p ON p.id = r.project_id WHERE p.slug = ?")
      .bind(slug)
      .first<number>("n");
    expect(written).toBe(0);
  });
});

describe("every walk finds each step by its key", () => {
  it("the app version's PFC walk over thousands of samples equals AVERAGE in TypeScript, and searches its samples by index", async () => {
    await env.DB.prepare("INSERT OR IGNORE INTO projects (id, slug, name, created_at) VALUES (9001, 'walk-plan', 'walk-plan', 0)").run();
    await env.DB.prepare("INSERT OR IGNORE INTO apps (project_id, id, name) VALUES (9001, 1, 'a')").run();
    await env.DB.prepare(
      "INSERT OR IGNORE INTO app_versions (project_id, id, app_id, platform, plan_class, version_num) VALUES (9001, 1, 1, 'x', '', 1)",
    ).run();
    // Spread samples with outliers, so that truncation and the exponential phase both happen.
    const samples = Array.from({ length: 5000 }, (_, i) => ((i * 7919) % 1000) / 100 + (i % 97 === 0 ? 500 : 0));
    const where = sql`project_id = 9001 AND id = 1`;
    const walk = averageWalk(appVersions, { n: "pfc_n", avg: "pfc_avg" }, where, samples, AV_AVERAGE);
    const steps = await recursiveSteps(walk);
    expect(steps.join(" | ")).toMatch(/SEARCH sample USING (AUTOMATIC )?(COVERING )?INDEX/);
    expect(steps.filter((l) => /^SCAN (sample|j)\b/.test(l))).toEqual([]);
    await runBatch(database(env.DB), [walk]);
    const expected = samples.reduce<Average>((acc, x) => averageUpdate.ts(acc, x, AV_AVERAGE), EMPTY_AVERAGE);
    const row = (await env.DB.prepare("SELECT pfc_n, pfc_avg FROM app_versions WHERE project_id = 9001 AND id = 1").first<{
      pfc_n: number;
      pfc_avg: number;
    }>())!;
    expect(row.pfc_n).toBe(expected.n);
    expect(relativeError(row.pfc_avg, expected.avg)).toBeLessThanOrEqual(1e-12);
  });

  it("the host_app_version walks (stored rows updated, created rows inserted) search their steps by index", async () => {
    const changes = Array.from({ length: 40 }, (_, n) => ({
      hostId: 1 + (n % 4),
      appId: 1,
      appVersionId: 1,
      samples: { pfc: 1 + n, et: 100 + n },
      consecutiveValid: "increment" as const,
    }));
    // Hosts 1 and 2 stored, 3 and 4 created by the pass: an UPDATE walk and an INSERT walk.
    const statements = hostAppVersionChangeWrites(9001, changes, new Map(), new Set(["3/1/1", "4/1/1"]));
    expect(
      statements.map((s) => /^\s*WITH RECURSIVE[\s\S]*\b(INSERT INTO|UPDATE) "host_app_versions"/.exec(dialect.sqlToQuery(s).sql)?.[1]),
    ).toEqual(["INSERT INTO", "UPDATE"]);
    for (const s of statements) {
      const steps = await recursiveSteps(s);
      expect(steps.join(" | ")).toMatch(/SEARCH s USING (AUTOMATIC )?(COVERING )?INDEX/);
      expect(
        steps.filter((l) => /^SCAN (?!w\b)/.test(l)),
        `${dialect.sqlToQuery(s).sql}\n${steps.join("\n")}`,
      ).toEqual([]);
    }
  });

  it("each walk of a pass batch searches its steps by index", async () => {
    const credit = (k: number) => ({ credit: 1 + k, time: 1000 + k });
    const effects = (k: number): PassEffects => ({
      results: [],
      workunits: [],
      attributions: [{ hostId: 1 + k, userId: 1 + k, teamId: 1 }],
      grants: [{ resultId: k, hostId: 1 + k, userId: 1 + k, teamId: 1, appId: 1, credit: 1 + k, startTime: 1000 + k }],
      hostAppVersionsSeen: [],
      hostAppVersionChanges: [],
      versionPfcSamples: new Map([[1, [1 + k, 2 + k]]]),
      versionCreditSamples: new Map([[1, [credit(k)]]]),
      fairVersions: new Map(),
      fairHostAppVersions: new Map(),
    });
    const passes = [0, 1, 2].map((k) => ({ now: 2000 + k, effects: effects(k) }));
    const statements = passBatchWrites(9001, passes, { hosts: new Set([1]), users: new Set([1]), teams: new Set([1]) }, "ledger");
    const recursive = statements.filter((s) => /WITH RECURSIVE/.test(dialect.sqlToQuery(s).sql));
    expect(recursive.length).toBeGreaterThan(3);
    for (const s of recursive) {
      const steps = await recursiveSteps(s);
      // The walk reads the row it came from (the queue) and finds the next step by its key: never a scan of the steps.
      expect(
        steps.filter((l) => /^SCAN (?!w\b|walk\b|\w+_w\b)/.test(l)),
        `${dialect.sqlToQuery(s).sql}\n${steps.join("\n")}`,
      ).toEqual([]);
      // A walk of several rows finds the next step by its row and rank, not by its rank alone
      // (which read every step of that rank: src/db/walks.ts); the PFC walk is one row's samples.
      const searches = steps.filter((l) => /^SEARCH \w*s USING/.test(l));
      expect(
        searches.filter((l) => !/\(k=\? AND i=\?\)/.test(l)),
        steps.join("\n"),
      ).toEqual([]);
    }
    // Each stored host, user and team is sought by its key, never found by a scan of the project's rows.
    for (const s of statements.filter((x) => /UPDATE "(hosts|users|teams)" SET/.test(dialect.sqlToQuery(x).sql))) {
      const q = dialect.sqlToQuery(s);
      const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${q.sql}`)
        .bind(...q.params)
        .all<{ detail: string }>();
      const details = plan.results.map((r) => r.detail);
      expect(
        details.filter((d) => /^(SCAN|SEARCH) (hosts|users|teams)\b/.test(d) && !/\(project_id=\? AND id=\?\)/.test(d)),
        q.sql,
      ).toEqual([]);
    }
  });
});
