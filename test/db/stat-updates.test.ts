/**
 * Each statistic's SQL form (applied by D1 to the row's current values) must agree with its
 * TypeScript form (applied to the in-pass copy), on random sample sequences, against real D1.
 * The SQL is built by the very writers a pass uses.
 */
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EMPTY_AVERAGE, type Average } from "../../src/credit/average";
import { AV_AVERAGE, HAV_AVERAGE } from "../../src/credit/constants";
import type { HostAppVersionChange } from "../../src/credit/pass";
import { ZERO_HOST_APP_VERSION } from "../../src/credit/pass";
import { applyHostAppVersionSamples, type HostAppVersionStats } from "../../src/credit/pfc";
import { runBatch } from "../../src/db/batch";
import { database } from "../../src/db/client";
import { hostAppVersionChangeWrites } from "../../src/db/host-app-version-writes";
import { grantGroups } from "../../src/db/grant-groups";
import { holderWalkWrites } from "../../src/db/holder-walks";
import { QueueNumbers } from "../../src/db/queue-numbers";
import { averageWalk } from "../../src/db/version-writes";
import { hostAppVersions } from "../../src/db/schema";
import { averageUpdate, decayedRecentAverageTwin, recentAverageRun } from "../../src/db/stat-updates";
import { relativeError } from "../support/trace";

const db = database(env.DB);
const PROJECT = 1;
let nextId = 0;

async function ensureProject(): Promise<void> {
  await env.DB.prepare("INSERT OR IGNORE INTO projects (id, slug, name, created_at) VALUES (?, 'twins', 'twins', 0)").bind(PROJECT).run();
}

async function freshHostAppVersion(): Promise<number> {
  await ensureProject();
  const hostId = ++nextId;
  await env.DB.prepare("INSERT INTO host_app_versions (project_id, host_id, app_id, app_version_id) VALUES (?, ?, 1, 1)")
    .bind(PROJECT, hostId)
    .run();
  return hostId;
}

const close = (a: number, b: number) => relativeError(a, b) <= 1e-12;

/** Non-negative samples, with zeros and outliers that trigger truncation at 10 × avg. */
const sample = fc.oneof(fc.double({ min: 0, max: 10, noNaN: true }), fc.constant(0), fc.double({ min: 10, max: 1e6, noNaN: true }));

/** The statistics columns of a host_app_versions row, as `SELECT *` reads them. */
interface StatRow {
  pfc_n: number;
  pfc_avg: number;
  et_n: number;
  et_avg: number;
  et_var: number;
  et_q: number;
  turnaround_n: number;
  turnaround_avg: number;
  turnaround_var: number;
  consecutive_valid: number;
}

describe("AVERAGE: the one-statement walk agrees with TypeScript", () => {
  for (const [label, params] of [
    ["HAV params", HAV_AVERAGE],
    ["AV params", AV_AVERAGE],
  ] as const) {
    it(`on random sequences across the running-mean/exponential switch (${label})`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(sample, { minLength: params.thresh - 3, maxLength: params.thresh + 15, size: "max" }),
          async (samples) => {
            const hostId = await freshHostAppVersion();
            const expected = samples.reduce<Average>((acc, x) => averageUpdate.ts(acc, x, params), EMPTY_AVERAGE);
            const where = sql`project_id = ${PROJECT} AND host_id = ${hostId}`;
            await runBatch(db, [averageWalk(hostAppVersions, { n: "pfc_n", avg: "pfc_avg" }, where, samples, params)]);
            const row = await env.DB.prepare("SELECT pfc_n, pfc_avg FROM host_app_versions WHERE host_id = ?")
              .bind(hostId)
              .first<{ pfc_n: number; pfc_avg: number }>();
            expect(row!.pfc_n).toBe(expected.n);
            expect(close(row!.pfc_avg, expected.avg)).toBe(true);
          },
        ),
        { numRuns: 25 },
      );
    });
  }
});

describe("host_app_version changes (AVERAGE and AVERAGE_VAR, consecutive_valid): SQL rounds agree with TypeScript", () => {
  const change = fc.record({
    pfc: fc.option(sample, { nil: undefined }),
    et: fc.option(sample, { nil: undefined }),
    turnaround: fc.option(fc.integer({ min: 0, max: 1e6 }), { nil: undefined }),
    consecutiveValid: fc.constantFrom("increment" as const, "reset" as const, undefined),
  });
  it("for sequences of changes on two rows, interleaved", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.boolean(), change), { minLength: HAV_AVERAGE.thresh - 3, maxLength: 45, size: "max" }),
        async (sequence) => {
          const ids = [await freshHostAppVersion(), await freshHostAppVersion()];
          const expected = new Map<number, HostAppVersionStats>(ids.map((id) => [id, ZERO_HOST_APP_VERSION]));
          const changes: HostAppVersionChange[] = sequence.map(([second, c]) => {
            const hostId = ids[second ? 1 : 0]!;
            const samples = {
              ...(c.pfc === undefined ? {} : { pfc: c.pfc }),
              ...(c.et === undefined ? {} : { et: c.et }),
              ...(c.turnaround === undefined ? {} : { turnaround: c.turnaround }),
            };
            const before = expected.get(hostId)!;
            const after = applyHostAppVersionSamples(before, samples);
            const cv =
              c.consecutiveValid === "increment"
                ? before.consecutiveValid + 1
                : c.consecutiveValid === "reset"
                  ? 0
                  : before.consecutiveValid;
            expected.set(hostId, { ...after, consecutiveValid: cv });
            return { hostId, appId: 1, appVersionId: 1, samples, ...(c.consecutiveValid ? { consecutiveValid: c.consecutiveValid } : {}) };
          });
          await runBatch(db, hostAppVersionChangeWrites(PROJECT, changes));
          for (const id of ids) {
            const row = await env.DB.prepare("SELECT * FROM host_app_versions WHERE host_id = ?").bind(id).first<StatRow>();
            const want = expected.get(id)!;
            if (row === null) throw new Error(`no host_app_versions row of host ${id}`);
            expect(row.pfc_n).toBe(want.pfc.n);
            expect(close(row.pfc_avg, want.pfc.avg)).toBe(true);
            expect(row.et_n).toBe(want.et.n);
            expect(close(row.et_avg, want.et.avg)).toBe(true);
            expect(close(row.et_var, want.et.var)).toBe(true);
            expect(close(row.et_q, want.et.q)).toBe(true);
            expect(row.turnaround_n).toBe(want.turnaround.n);
            expect(close(row.turnaround_avg, want.turnaround.avg)).toBe(true);
            expect(close(row.turnaround_var, want.turnaround.var)).toBe(true);
            expect(row.consecutive_valid).toBe(want.consecutiveValid);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("recent average credit: one collapsed update per row and pass agrees with grant-by-grant update_average", () => {
  const grant = fc.record({ credit: fc.double({ min: 0, max: 1e4, noNaN: true }), startBack: fc.integer({ min: 0, max: 30 * 86400 }) });
  const row = fc.record({
    avg: fc.double({ min: 0, max: 1e5, noNaN: true }),
    // Never set, long ago, or later than now (out-of-order passes: the gap counts as zero).
    time: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2e9 })),
    total: fc.double({ min: 0, max: 1e9, noNaN: true }),
    grants: fc.array(grant, { minLength: 1, maxLength: 6, size: "max" }),
  });
  it("for several rows in one statement, from any stored pair and any run of grants", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1e6, max: 2e9 }), fc.array(row, { minLength: 1, maxLength: 5 }), async (now, rows) => {
        await ensureProject();
        const ids = rows.map(() => ++nextId);
        for (const [i, r] of rows.entries()) {
          await env.DB.prepare(
            "INSERT INTO hosts (project_id, id, create_time, total_credit, expavg_credit, expavg_time) VALUES (?, ?, 0, ?, ?, ?)",
          )
            .bind(PROJECT, ids[i], r.total, r.avg, r.time)
            .run();
        }
        const groups = new Map(rows.map((r, i) => [`${ids[i]}`, r.grants.map((g) => ({ credit: g.credit, start: now - g.startBack }))]));
        // The rows' runs as one pass of the writer (hosts without owners: no user or team row).
        const grants = [...groups].flatMap(([id, parts]) =>
          parts.map((x) => ({ resultId: 0, hostId: Number(id), userId: 0, teamId: 0, appId: 1, credit: x.credit, startTime: x.start })),
        );
        const none = { hosts: new Map(), users: new Map(), teams: new Map() };
        const walks = holderWalkWrites(
          PROJECT,
          [{ now, grants, groups: grantGroups(grants), fresh: none }],
          new QueueNumbers(PROJECT),
          "ledger",
        );
        await runBatch(db, [...walks.history, ...walks.holders, ...walks.projectRow]);
        for (const [i, r] of rows.entries()) {
          const parts = groups.get(`${ids[i]}`)!;
          const want = recentAverageRun.ts({ expavgCredit: r.avg, expavgTime: r.time }, now, parts);
          const got = await env.DB.prepare("SELECT total_credit, expavg_credit, expavg_time FROM hosts WHERE id = ?")
            .bind(ids[i])
            .first<{ total_credit: number; expavg_credit: number; expavg_time: number }>();
          expect(got!.expavg_time).toBe(want.expavgTime);
          expect(close(got!.expavg_credit, want.expavgCredit)).toBe(true);
          expect(
            close(
              got!.total_credit,
              parts.reduce((s, p) => s + p.credit, r.total),
            ),
          ).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("decayed RAC: the SQL a leaderboard ranks by agrees with decayedRecentAverage", () => {
  it("for any stored pair (unset clock included) and any reading time, before or after it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0, max: 1e9, noNaN: true }),
        fc.oneof(fc.constant(0), fc.double({ min: 1, max: 2e9, noNaN: true })),
        fc.double({ min: 1, max: 2e9, noNaN: true }),
        async (avg, time, at) => {
          const expr = decayedRecentAverageTwin.sql({ avg: sql`${avg}`, time: sql`${time}` }, sql`${at}`);
          const [row] = await db.all<{ v: number }>(sql`SELECT ${expr} AS v`);
          const want = decayedRecentAverageTwin.ts({ expavgCredit: avg, expavgTime: time }, at);
          expect(row!.v === want || close(row!.v, want) || Math.abs(row!.v - want) < 1e-300).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
