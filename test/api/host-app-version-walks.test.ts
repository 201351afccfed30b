/**
 * A pass, or a pass batch, writes host_app_versions by walking each row through its changes in
 * pass order and writing the walk's end (src/db/host-app-version-writes.ts,
 * docs/storage.md#host-app-versions-walk-their-changes). The claims: a row walked through many
 * changes in one statement, or in several parts, is exactly (every column, to the bit, and as
 * the same SQLite type) the row its passes leave one by one; and a pass of many changes on few
 * rows is a few statements, not one per change.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { HAV_AVERAGE } from "../../src/credit/constants";
import { havKey } from "../../src/credit/host-app-version-key";
import { database } from "../../src/db/client";
import { MAX_STEPS_PER_STATEMENT } from "../../src/db/walks";
import { PassRequestSchema, WorkunitSchema } from "../../src/routes/passes/passes.schemas";
import { engineWorkunits, ingestPass } from "../../src/routes/passes/passes.service";
import { DAY, daysAgo } from "../reads/fixtures";
import { type PassBody, type ResultBody, type TestProject, result, setupProject, workunit } from "../support/api-helpers";
import { MemoryLedger } from "../support/memory-ledger";
import { relativeError } from "../support/trace";
import { projectIdOf } from "../support/project-id";

const COLUMNS = [
  "host_id",
  "app_id",
  "app_version_id",
  "pfc_n",
  "pfc_avg",
  "et_n",
  "et_avg",
  "et_var",
  "et_q",
  "turnaround_n",
  "turnaround_avg",
  "turnaround_var",
  "turnaround_q",
  "consecutive_valid",
  "fair_n",
  "fair_q",
  "fair_buf",
  "fair_run",
  "fair_err",
  "fair_f",
  "neutral_period",
  "neutral_credit",
  "neutral_device_seconds",
  "neutral_results",
  "neutral_prev_credit",
  "neutral_prev_device_seconds",
  "neutral_prev_results",
];

async function projectId(p: TestProject): Promise<number> {
  return await projectIdOf(p.slug);
}

/** Every host_app_versions column of the project, each with its SQLite type (a REAL is not an INTEGER of the same value). */
async function havRows(p: TestProject) {
  const select = COLUMNS.map((c) => `${c}, typeof(${c}) AS "${c}:type"`).join(", ");
  return (
    await env.DB.prepare(`SELECT ${select} FROM host_app_versions WHERE project_id = ? ORDER BY host_id, app_id, app_version_id`)
      .bind(await projectId(p))
      .all<Record<string, number | string | null>>()
  ).results;
}

/**
 * Workunit `wu` at `now` with one result on each host of `hosts` (owned by user 100 + h, in team
 * 1 + h % 3), on app version `version`; runtimes and turnarounds spread, so each result is its
 * own PFC, runtime and turnaround sample; `invalid` hosts' results are invalid (a reset).
 */
function spread(wu: number, now: number, hosts: readonly number[], version = 1, invalid: readonly number[] = []) {
  return workunit(
    wu,
    hosts.map((h, j): ResultBody =>
      result(wu * 10 + j, {
        host_id: h,
        user_id: 100 + h,
        team_id: 1 + (h % 3),
        app_version_id: version,
        elapsed_time: 700 + ((wu * 37 + h * 101) % 900) + 0.25 * j,
        cpu_time: 600 + ((wu * 53 + h * 7) % 500),
        sent_time: now - 5000 - ((wu * 13 + h) % 4000),
        received_time: now - 100 - ((wu * 7 + h * 3) % 90),
        validate_state: invalid.includes(h) ? "invalid" : "valid",
      }),
    ),
  );
}

describe("host_app_versions walk their changes", () => {
  it("a batch of passes with many changes on few rows leaves every column as the passes one by one", async () => {
    const t = Math.floor(daysAgo(70) / DAY) * DAY + 3600;
    let wu = 1;
    /** A pass at `now` of `count` workunits on `hosts` (a row gets `count` changes), alternating app versions 1 and 2. */
    const on = (now: number, count: number, hosts: readonly number[], invalid: readonly number[] = []): PassBody => ({
      now,
      workunits: Array.from({ length: count }, () => {
        const id = wu++;
        return spread(id, now, hosts, 1 + (id % 2), invalid);
      }),
    });
    // Hosts 1 and 2 stored before the batch; host 3 created by the batch's second pass, host 4 by
    // its fifth; invalid results reset consecutive_valid mid-walk; passes 31 days apart move the
    // neutrality window into its next periods.
    const before = [on(t, 3, [1, 2])];
    const batch = [
      on(t + 600, 6, [1, 2]),
      on(t + 1200, 5, [1, 2, 3]),
      on(t + 1800, 4, [2, 3], [2]),
      on(t + DAY, 7, [1, 3]),
      on(t + DAY + 60, 3, [1, 2, 3, 4], [1]),
      on(t + 31 * DAY, 6, [3, 4]),
      on(t + 62 * DAY, 4, [1, 2, 4]),
    ];
    const single = await setupProject("hav-single");
    const batched = await setupProject("hav-batch");
    for (const p of before) {
      await single.api.ok("POST", "/passes", p);
      await batched.api.ok("POST", "/passes", p);
    }
    for (const p of batch) await single.api.ok("POST", "/passes", p);
    await batched.api.ok("POST", "/pass-batches", { passes: batch });

    const [one, many] = [await havRows(single), await havRows(batched)];
    expect(many).toEqual(one);
    // What the comparison covers: 4 hosts × 2 versions, rows with many changes (host 1, version
    // 2: 3 + 6 + 5 + 7 + 3 + 4 workunits, about half on each version), a reset, the fair state
    // and the neutrality window's previous period.
    expect(one.map((r) => `${r.host_id}/${r.app_version_id}`)).toEqual(["1/1", "1/2", "2/1", "2/2", "3/1", "3/2", "4/1", "4/2"]);
    expect(Math.max(...one.map((r) => Number(r.et_n)))).toBeGreaterThanOrEqual(10);
    expect(one.some((r) => Number(r.fair_n) > 0)).toBe(true);
    expect(one.some((r) => Number(r.neutral_prev_results) > 0)).toBe(true);
    expect(one.every((r) => r["pfc_avg:type"] === "real" && r["consecutive_valid:type"] === "integer")).toBe(true);
  });

  it("passes that change each row once (no walk) leave every column as the same passes in a batch (walked)", async () => {
    const t = Math.floor(daysAgo(70) / DAY) * DAY + 7200;
    // One workunit a pass: each row takes one change a pass, so a pass alone applies it to the
    // row itself; the batch walks each row through up to 6 changes. Host 3 is created by the
    // third pass, host 4 by the last; host 3's result of the fourth pass is invalid (a reset).
    const hostsOf = [
      [1, 2],
      [1, 2],
      [1, 2, 3],
      [2, 3],
      [1, 3],
      [1, 2, 3, 4],
    ];
    const passes = hostsOf.map((hosts, k) => ({
      now: t + k * 3600,
      workunits: [spread(k + 1, t + k * 3600, hosts, 1, k === 3 ? [3] : [])],
    }));
    const single = await setupProject("hav-once-single");
    const batched = await setupProject("hav-once-batch");
    for (const p of passes) await single.api.ok("POST", "/passes", p);
    await batched.api.ok("POST", "/pass-batches", { passes });
    const [one, many] = [await havRows(single), await havRows(batched)];
    expect(many).toEqual(one);
    // Host 1 valid in 5 passes, host 2 in 5, host 3 reset by its second pass and valid in the 2 after it, host 4 in 1.
    expect(one.map((r) => [r.host_id, r.consecutive_valid])).toEqual([
      [1, 5],
      [2, 5],
      [3, 2],
      [4, 1],
    ]);
  });

  it(
    `a row with more than ${MAX_STEPS_PER_STATEMENT} changes is walked in parts, and ends as its passes one by one`,
    { timeout: 120_000 },
    async () => {
      const t = daysAgo(3);
      let wu = 1;
      // 2 passes × 300 workunits on hosts 1 and 2: one by one, each row walks 300 changes a pass;
      // in a batch, 600, more than a statement holds (its first part inserted, the rest updated).
      const on = (now: number): PassBody => ({ now, workunits: Array.from({ length: 300 }, () => spread(wu++, now, [1, 2])) });
      const passes = [on(t), on(t + 60)];
      const single = await setupProject("hav-parts-single");
      const batched = await setupProject("hav-parts-batch");
      for (const p of passes) await single.api.ok("POST", "/passes", p);
      await batched.api.ok("POST", "/pass-batches", { passes });
      const [one, many] = [await havRows(single), await havRows(batched)];
      expect(many).toEqual(one);
      expect(one.map((r) => [r.host_id, r.consecutive_valid])).toEqual([
        [1, 600],
        [2, 600],
      ]);
      expect(600).toBeGreaterThan(MAX_STEPS_PER_STATEMENT);
    },
  );

  it(
    "a pass of 1,000 workunits on the same 5 hosts writes them in 10 statements, not 1,000, and leaves the engine's numbers",
    { timeout: 120_000 },
    async () => {
      const now = daysAgo(1);
      const p = await setupProject("hav-same5");
      const hosts = [1, 2, 3, 4, 5];
      const body: PassBody = { now, workunits: Array.from({ length: 1000 }, (_, i) => spread(i + 1, now, hosts)) };
      const written: { sql: string; rows: number }[] = [];
      const counting = new Proxy(env.DB, {
        get(target, prop) {
          if (prop === "batch") {
            return async (statements: D1PreparedStatement[]) => {
              const results = await target.batch(statements);
              results.forEach((r, i) =>
                written.push({ sql: String((statements[i] as unknown as { statement: string }).statement), rows: r.meta.rows_written }),
              );
              return results;
            };
          }
          const value = Reflect.get(target, prop, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      await ingestPass(database(counting), await projectId(p), now, PassRequestSchema.parse(body));
      const hav = written.filter((s) => /\b(INSERT INTO|UPDATE) "host_app_versions"/.test(s.sql));
      // 5 rows × 1,000 changes (one per workunit) = 5,000 steps; a statement walks at most 500, so
      // each row is walked in 2 parts (inserted by the first, updated by the second): 10
      // statements, each writing its one row.
      expect(MAX_STEPS_PER_STATEMENT).toBe(500);
      expect(hav.map((s) => s.rows)).toEqual(Array.from({ length: 10 }, () => 1));

      const l = new MemoryLedger();
      l.putApp({ name: "a", hostScaleCheck: false });
      l.putApp({ name: "g", hostScaleCheck: true, minAvgPfc: 1.5, targetNresults: 2 });
      l.putVersion({ id: 1, app: "a", platform: "linux", planClass: "", versionNum: 1 });
      const parsed = body.workunits.map((w) => WorkunitSchema.parse(w));
      const input = engineWorkunits(
        parsed,
        parsed.map((w) => w.results.map((r) => JSON.stringify([w.id, r]))),
      );
      expect(l.pass(now, input).conflicts).toEqual([]);
      const rows = await havRows(p);
      expect(rows).toHaveLength(5);
      for (const r of rows) {
        const want = l.hostAppVersions.get(havKey({ hostId: Number(r.host_id), appId: Number(r.app_id), appVersionId: 1 }))!;
        expect(r.consecutive_valid).toBe(want.consecutiveValid);
        expect(r.consecutive_valid).toBe(1000);
        expect(r.et_n).toBe(want.et.n);
        expect(r.pfc_n).toBe(want.pfc.n);
        expect(want.et.n).toBeGreaterThan(HAV_AVERAGE.thresh);
        // The parity traces' tolerance (docs/development.md, BOINC parity).
        for (const [got, exp] of [
          [r.pfc_avg, want.pfc.avg],
          [r.et_avg, want.et.avg],
          [r.et_var, want.et.var],
          [r.turnaround_avg, want.turnaround.avg],
          [r.turnaround_var, want.turnaround.var],
        ] as const) {
          expect(relativeError(Number(got), exp)).toBeLessThanOrEqual(1e-9);
        }
      }
    },
  );
});
