/**
 * Each statistic's SQL form (applied by D1 to the row's current values) must agree with its
 * TypeScript form (applied to the in-pass copy), on random sample sequences, against real D1.
 */
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EMPTY_AVERAGE, EMPTY_AVERAGE_VAR, type Average, type AverageVar } from "../../src/credit/average";
import { AV_AVERAGE, HAV_AVERAGE } from "../../src/credit/constants";
import { runBatch } from "../../src/db/batch";
import { database } from "../../src/db/client";
import {
  GRANT_RUN_SAMPLE,
  averageUpdate,
  averageVarUpdate,
  grantRun,
  grantRunValues,
  recentAverageRun,
  setClause,
} from "../../src/db/stat-updates";
import { relativeError } from "../support/trace";

const db = database(env.DB);
let rowId = 0;

async function freshRow(): Promise<number> {
  const id = ++rowId;
  await env.DB.prepare("INSERT OR IGNORE INTO projects (id, slug, name, token_hash, created_at) VALUES (1, 'twins', 'twins', 'x', 0)").run();
  await env.DB.prepare(
    "INSERT INTO host_app_versions (project_id, host_id, app_id, app_version_id) VALUES (1, ?, 1, 1)",
  ).bind(id).run();
  await env.DB.prepare("INSERT INTO hosts (project_id, id, create_time) VALUES (1, ?, 0)").bind(id).run();
  return id;
}

const close = (a: number, b: number) => relativeError(a, b) <= 1e-12 || Math.abs(a - b) <= 1e-300;

/** Non-negative samples, with zeros and outliers that trigger truncation at 10 × avg. */
const sample = fc.oneof(
  fc.double({ min: 0, max: 10, noNaN: true }),
  fc.constant(0),
  fc.double({ min: 10, max: 1e6, noNaN: true }),
);

describe("AVERAGE: SQL twin agrees with TypeScript", () => {
  for (const [label, params] of [["HAV params", HAV_AVERAGE], ["AV params", AV_AVERAGE]] as const) {
    it(`on random sequences across the running-mean/exponential switch (${label})`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(sample, { minLength: params.thresh - 3, maxLength: params.thresh + 15, size: "max" }), async (samples) => {
          const id = await freshRow();
          const expected = samples.reduce<Average>((acc, x) => averageUpdate.ts(acc, x, params), EMPTY_AVERAGE);
          const set = averageUpdate.sql({ n: "pfc_n", avg: "pfc_avg" }, sql.raw("s.x"), params);
          await runBatch(
            db,
            samples.map(
              (x) => sql`UPDATE host_app_versions SET ${setClause(set)} FROM (SELECT ${x} AS x) AS s WHERE host_id = ${id}`,
            ),
          );
          const row = await env.DB.prepare("SELECT pfc_n, pfc_avg FROM host_app_versions WHERE host_id = ?")
            .bind(id)
            .first<{ pfc_n: number; pfc_avg: number }>();
          expect(row!.pfc_n).toBe(expected.n);
          expect(close(row!.pfc_avg, expected.avg)).toBe(true);
        }),
        { numRuns: 25 },
      );
    });
  }
});

describe("AVERAGE_VAR: SQL twin agrees with TypeScript", () => {
  it("on random sequences across the Welford/exponential switch", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(sample, { minLength: HAV_AVERAGE.thresh - 3, maxLength: 40, size: "max" }), async (samples) => {
        const id = await freshRow();
        const expected = samples.reduce<AverageVar>((acc, x) => averageVarUpdate.ts(acc, x, HAV_AVERAGE), EMPTY_AVERAGE_VAR);
        const set = averageVarUpdate.sql({ n: "et_n", avg: "et_avg", var: "et_var", q: "et_q" }, sql.raw("s.x"), HAV_AVERAGE);
        await runBatch(
          db,
          samples.map(
            (x) => sql`UPDATE host_app_versions SET ${setClause(set)} FROM (SELECT ${x} AS x) AS s WHERE host_id = ${id}`,
          ),
        );
        const row = await env.DB.prepare("SELECT et_n, et_avg, et_var, et_q FROM host_app_versions WHERE host_id = ?")
          .bind(id)
          .first<{ et_n: number; et_avg: number; et_var: number; et_q: number }>();
        expect(row!.et_n).toBe(expected.n);
        expect(close(row!.et_avg, expected.avg)).toBe(true);
        expect(close(row!.et_var, expected.var)).toBe(true);
        expect(close(row!.et_q, expected.q)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });
});

describe("recent average credit: one collapsed SQL statement per row and pass agrees with grant-by-grant update_average", () => {
  const grant = fc.record({ credit: fc.double({ min: 0, max: 1e4, noNaN: true }), startBack: fc.integer({ min: 0, max: 30 * 86400 }) });
  it("from any stored pair (never set, older, or later than now) and any run of grants", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.double({ min: 0, max: 1e5, noNaN: true }),
        fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2e9 })),
        fc.integer({ min: 1e6, max: 2e9 }),
        fc.array(grant, { minLength: 1, maxLength: 6, size: "max" }),
        async (avg, time, now, grants) => {
          const id = await freshRow();
          await env.DB.prepare("UPDATE hosts SET expavg_credit = ?, expavg_time = ? WHERE id = ?").bind(avg, time, id).run();
          const parts = grants.map((g) => ({ credit: g.credit, start: now - g.startBack }));
          const expected = recentAverageRun.ts({ expavgCredit: avg, expavgTime: time }, now, parts);
          const set = recentAverageRun.sql({ avg: "expavg_credit", time: "expavg_time" }, GRANT_RUN_SAMPLE);
          await runBatch(db, [
            sql`UPDATE hosts SET ${setClause(set)} FROM (${grantRunValues(grantRun(now, parts))}) AS g WHERE id = ${id}`,
          ]);
          const row = await env.DB.prepare("SELECT expavg_credit, expavg_time FROM hosts WHERE id = ?")
            .bind(id)
            .first<{ expavg_credit: number; expavg_time: number }>();
          expect(row!.expavg_time).toBe(expected.expavgTime);
          expect(close(row!.expavg_credit, expected.expavgCredit)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});
