/**
 * Cost, measured (issue 13): the bench's ingest phases through the Worker's own pass code on
 * wrangler's local D1 (getPlatformProxy: the same SQLite engine and the same `meta` D1 returns
 * for every statement), summing `rows_read` and `rows_written` per validated result, and
 * reading `size_after` for the bytes stored, and dbstat on the database files for the bytes of
 * each table (bench/table-bytes.ts). Every D1 call of a pass is a batch (one read
 * batch, one write batch), so metering `batch` meters all of it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { database } from "../src/db/client";
import { ingestPass } from "../src/routes/passes/passes.service";
import { foldAllAppCredit } from "../src/jobs/history-move";
import { rescaleProject } from "../src/services/rescale";
import type { CostRow, CostSummary } from "./cost-summary";
import { growthPer, tableBytes } from "./table-bytes";
import { migratedLocalD1 } from "./local-d1";
import { phaseBodies } from "./phases";
import { APPS, passes, versions } from "./workload";

const DAY = 86400;

export type { CostRow, CostSummary } from "./cost-summary";

interface Meter {
  rowsRead: number;
  rowsWritten: number;
  sizeAfter: number;
  /** Rows written per statement target. */
  byTarget: Map<string, number>;
}

/**
 * "UPDATE hosts", "INSERT INTO results"…: what a statement writes to, past any WITH clause.
 * The SQL text is read from the prepared statement's `statement` field (not a public API: a
 * statement without it is counted as "other").
 */
function targetOf(statement: D1PreparedStatement): string {
  const text = String((statement as unknown as { statement?: string }).statement ?? "");
  const m = /\b(INSERT INTO|UPDATE|DELETE FROM)\s+[`"]?(\w+)/i.exec(text.replace(/^\s*WITH[\s\S]*?\)\s*(?=INSERT|UPDATE|DELETE)/i, ""));
  return m ? `${m[1]!.toUpperCase()} ${m[2]}` : "other";
}

/** A D1Database whose batches add their statements' meta to `meter`. */
function metered(d1: D1Database, meter: Meter): D1Database {
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          const results = await target.batch(statements);
          results.forEach((r, i) => {
            const key = targetOf(statements[i]!);
            meter.byTarget.set(key, (meter.byTarget.get(key) ?? 0) + (r.meta.rows_written ?? 0));
          });
          for (const r of results) {
            meter.rowsRead += r.meta.rows_read ?? 0;
            meter.rowsWritten += r.meta.rows_written ?? 0;
            meter.sizeAfter = r.meta.size_after ?? meter.sizeAfter;
          }
          return results;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function run(d1: D1Database, sql: string): Promise<void> {
  await d1.prepare(sql).run();
}

/** Passes between two rescales with `--policy fair` (the cron's 10 minutes at a few passes a minute). */
const PASSES_PER_RESCALE = 10;

/**
 * `policy` "fair": every app on the fair policy, rescaled (unmetered: a rescale is per 10
 * minutes, not per result) every PASSES_PER_RESCALE passes, so that apps take their anchor and
 * seal their versions as they would in service, and later hosts' rows are not founders.
 */
export async function measureCost(root: string, now: number, quick: boolean, policy: "boinc" | "fair" = "boinc"): Promise<CostSummary> {
  const local = await migratedLocalD1(root, "cobblestone-cost-");
  const persist = local.persist;
  try {
    const raw = local.d1;
    await run(raw, "INSERT INTO projects (id, slug, name, created_at, expavg_time) VALUES (1, 'bench', 'Bench', 0, 0)");
    for (const [i, a] of APPS.entries())
      await raw
        .prepare("INSERT INTO apps (project_id, id, name, credit_policy) VALUES (1, ?, ?, ?)")
        .bind(i + 1, a.name, policy)
        .run();
    for (const v of versions()) {
      await raw
        .prepare("INSERT INTO app_versions (project_id, id, app_id, platform, plan_class, version_num) VALUES (1, ?, ?, ?, ?, ?)")
        .bind(v.id, APPS.findIndex((a) => a.name === v.app) + 1, v.platform, v.plan_class, v.version_num)
        .run();
    }
    const meter: Meter = { rowsRead: 0, rowsWritten: 0, sizeAfter: 0, byTarget: new Map() };
    const db = database(metered(raw, meter));
    const unmetered = database(raw);
    let passesSinceRescale = 0;
    const measure = async (size: number, bodies: Iterable<{ now: number }>): Promise<CostRow> => {
      const before = { ...meter, byTarget: new Map(meter.byTarget), tables: tableBytes(persist) };
      let valid = 0;
      let count = 0;
      for (const body of bodies) {
        const out = await ingestPass(db, 1, body.now, body as never);
        valid += out.workunits.flatMap((w) => w.results).filter((r) => r.validate_state === "valid" && !r.replayed).length;
        count++;
        if (policy === "fair" && ++passesSinceRescale === PASSES_PER_RESCALE) {
          await rescaleProject(unmetered, unmetered, 1, body.now);
          passesSinceRescale = 0;
        }
      }
      // Per-app credit is folded hourly (src/jobs/history-move.ts); each phase's passes share one
      // `now`, so one fold per phase is what an hourly fold does to them.
      await foldAllAppCredit(db);
      return {
        size,
        passes: count,
        validResults: valid,
        rowsReadPerResult: (meter.rowsRead - before.rowsRead) / valid,
        rowsWrittenPerResult: (meter.rowsWritten - before.rowsWritten) / valid,
        bytesPerResult: (meter.sizeAfter - before.sizeAfter) / valid,
        writtenByTarget: Object.fromEntries(
          [...meter.byTarget]
            .map(([k, n]) => [k, (n - (before.byTarget.get(k) ?? 0)) / valid] as const)
            .filter(([, n]) => n > 0)
            .sort((a, b) => b[1] - a[1]),
        ),
        bytesByTable: growthPer(before.tables, tableBytes(persist), valid),
      };
    };
    const bytesLine = (row: CostRow) =>
      `  bytes by table: ${Object.entries(row.bytesByTable)
        .map(([k, n]) => `${k} ${n.toFixed(1)}`)
        .join(", ")}`;
    const count = async (table: string) => (await raw.prepare(`SELECT count(*) AS n FROM ${table}`).first<number>("n")) ?? 0;
    const rows: CostRow[] = [];
    // The phases on one day, then a second day (below).
    for (const phase of phaseBodies(quick, now - DAY)) {
      const row = await measure(phase.size, phase.bodies());
      rows.push(row);
      console.error(
        `cost: passes of ${row.size}: ${row.rowsReadPerResult.toFixed(1)} rows read, ${row.rowsWrittenPerResult.toFixed(2)} rows written, ${row.bytesPerResult.toFixed(0)} bytes per validated result`,
      );
      console.error(
        `  written by: ${Object.entries(row.writtenByTarget)
          .map(([k, n]) => `${k} ${n.toFixed(2)}`)
          .join(", ")}`,
      );
      console.error(bytesLine(row));
    }
    if (policy === "fair") {
      // Whether the run reached version 3's steady state: anchored apps, sealed versions, newcomers' rows not founders.
      const one = async (sql: string) => (await raw.prepare(sql).first<number>("n")) ?? 0;
      console.error(
        `cost: fair: ${await one("SELECT count(*) AS n FROM apps WHERE fair_s_ref IS NOT NULL")} of ${await count("apps")} apps anchored, ` +
          `${await one("SELECT count(*) AS n FROM app_versions WHERE fair_sealed")} of ${await count("app_versions")} versions sealed, ` +
          `${await one("SELECT count(*) AS n FROM host_app_versions WHERE NOT fair_founder")} of ${await count("host_app_versions")} host × version rows not founders`,
      );
    }
    const historyBefore = await count("credit_history");
    const at100 = rows.find((r) => r.size === 100)!;
    const day2 = await measure(100, passes(Array(at100.passes).fill(100), { seed: 4242, firstWu: 50_000_000, now }));
    const historyRows = (await count("credit_history")) - historyBefore;
    const nextDay = { ...day2, historyRows };
    console.error(
      `cost: a second day: ${historyRows} new daily history rows; ${day2.bytesPerResult.toFixed(0)} bytes per validated result (size_after)`,
    );
    console.error(bytesLine(day2));
    return {
      rows,
      nextDay,
      sizeBytes: meter.sizeAfter,
      accounts: { hosts: await count("hosts"), users: await count("users"), teams: await count("teams") },
      retainedRows: { results: await count("results"), workunits: await count("workunits"), creditHistory: await count("credit_history") },
      tableBytes: Object.fromEntries(tableBytes(persist)),
    };
  } finally {
    await local.dispose();
  }
}

// `tsx bench/cost.ts [--quick] [--policy fair]`: this part alone, as JSON on stdout.
if (process.argv[1]?.endsWith("cost.ts")) {
  const root = new URL("..", import.meta.url).pathname;
  const policy = process.argv.includes("--policy") && process.argv[process.argv.indexOf("--policy") + 1] === "fair" ? "fair" : "boinc";
  measureCost(root, Math.floor(Date.now() / 1000) - 60, process.argv.includes("--quick"), policy)
    .then((s) => {
      mkdirSync(join(root, "bench/results"), { recursive: true });
      writeFileSync(join(root, "bench/results/cost.json"), JSON.stringify(s, null, 2));
      console.log(JSON.stringify(s, null, 2));
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
