/**
 * `npm run bench:bridge`: backfill throughput of the bridge from MariaDB into `wrangler dev` on
 * this machine, and its peak memory, on two kinds of history:
 * - dense: 100 results decided together every 10 s, at two sizes (flat memory if it streams);
 *   BRIDGE_BENCH_RESULTS (default 100,000) and BRIDGE_BENCH_PER_SECOND (default 100) size it;
 * - sparse: one workunit (2 results) decided every second, a pass per second of history;
 *   BRIDGE_BENCH_SPARSE_RESULTS (default 20,000) sizes it, and a quarter of it is also sent one
 *   pass per request (as before POST /pass-batches) to show what batching gains under the
 *   same load;
 * - dense-writeback: the smaller dense history as a --no_credit validator leaves it, backfilled
 *   with --write-back (one MariaDB transaction per request), against the read-only dense run.
 * - sparse-new-holders and dense-200 (and their -writeback twins): shaped like the measurements
 *   made from outside against BOINC's own schema (its indexes, ~1 KB of text per result), run
 *   as an admin runs them: the CLI in a process of its own, timed from its start to its exit.
 *   sparse-new-holders: 6,000 results, a workunit a second, round 3,064 hosts each of its own
 *   user and team (most results bring a new host, user and team: 9,192 records); dense-200:
 *   100,000 results, 200 a second of mod_time, over the same 500 hosts as dense (dense-200-new-holders:
 *   round 51,064 hosts, users and teams, as many records per result as sparse-new-holders).
 * BRIDGE_BENCH_ONLY=sparse,sparse-unbatched picks workloads by name.
 * Each line ends with counts per 1,000 results (requests by kind, MariaDB statements and rows
 * read), which a loaded machine does not blur as it blurs seconds.
 * Each line also gives the pass requests' round trip as the bridge saw it (the deployment
 * estimate in BENCHMARKS.md starts from it) and the requests per day of history.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bridgeOptions, runBridge } from "../../bridge/running/run";
import { startWranglerDev } from "../../test/browser/wrangler-dev";
import { createBoincDb } from "../../test/bridge/boinc-fixture";
import { MARIADB_MISSING, mariadbAvailable, startMariaDb } from "../../test/bridge/mariadb";
import { createProject } from "../../test/bridge/service";
import { writerDsn } from "../../test/bridge/write-back-check";
import { widenToBoincTables } from "./boinc-full-tables";
import { type RequestCounts, countingFetch, emptyCounts } from "./count-requests";
import { type Holders, loadSyntheticProject } from "./synthetic-boinc";

const ROOT = new URL("../..", import.meta.url).pathname;
const RESULTS = Number(process.env.BRIDGE_BENCH_RESULTS ?? 100_000);
const PER_SECOND = Number(process.env.BRIDGE_BENCH_PER_SECOND ?? 100);
const SPARSE_RESULTS = Number(process.env.BRIDGE_BENCH_SPARSE_RESULTS ?? 20_000);
const ADMIN = "bench-bridge-admin";
const DAY = 86_400;

interface Workload {
  name: string;
  results: number;
  /** Results decided together, and the seconds of history between two such passes. */
  perPass: number;
  secondsBetween: number;
  /** Passes per request; absent: as many as the API takes. */
  passesPerRequest?: number;
  /** --write-back, on the history as a --no_credit validator leaves it. */
  writeBack?: boolean;
  /** Hosts, users and teams (default: 500 of 250 in 25). */
  holders?: Holders;
  /** BOINC's indexes and a result row's text (boinc-full-tables.ts). */
  boincTables?: boolean;
  /** The CLI in a process of its own, timed from its start to its exit (start-up included). */
  cli?: boolean;
}

/** Most results bring a new host, user and team: 6,000 results go round 3,064 of each, 9,192 records as measured from outside. */
const NEW_HOLDERS: Holders = { hosts: 3064, users: 3064, teams: 3064, roundRobin: true };

const WORKLOADS: Workload[] = [
  { name: "dense", results: Math.round(RESULTS / 4), perPass: PER_SECOND, secondsBetween: 10 },
  { name: "dense-writeback", results: Math.round(RESULTS / 4), perPass: PER_SECOND, secondsBetween: 10, writeBack: true },
  { name: "dense", results: RESULTS, perPass: PER_SECOND, secondsBetween: 10 },
  { name: "sparse", results: SPARSE_RESULTS, perPass: 2, secondsBetween: 1 },
  // The same history one pass per request, as before POST /pass-batches: what batching gains, under the same load.
  { name: "sparse-unbatched", results: Math.round(SPARSE_RESULTS / 4), perPass: 2, secondsBetween: 1, passesPerRequest: 1 },
  // Shaped like the measurements made from outside (issue 35): BOINC's own tables, the CLI timed whole.
  { name: "sparse-new-holders", results: 6000, perPass: 2, secondsBetween: 1, holders: NEW_HOLDERS, boincTables: true, cli: true },
  {
    name: "sparse-new-holders-writeback",
    results: 6000,
    perPass: 2,
    secondsBetween: 1,
    holders: NEW_HOLDERS,
    boincTables: true,
    cli: true,
    writeBack: true,
  },
  { name: "dense-200", results: 100_000, perPass: 200, secondsBetween: 1, boincTables: true, cli: true },
  // The same with as many holders per result as sparse-new-holders (1.53 records per result): what the outside dense run had is not known.
  {
    name: "dense-200-new-holders",
    results: 100_000,
    perPass: 200,
    secondsBetween: 1,
    holders: { hosts: 51_064, users: 51_064, teams: 51_064, roundRobin: true },
    boincTables: true,
    cli: true,
  },
  { name: "dense-200-writeback", results: 100_000, perPass: 200, secondsBetween: 1, boincTables: true, cli: true, writeBack: true },
];

/** BRIDGE_BENCH_ONLY=sparse,sparse-unbatched runs only those workloads (all by default). */
const ONLY = process.env.BRIDGE_BENCH_ONLY?.split(",");

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;

/**
 * wrangler.jsonc as it is, rate limits included (a legitimate bridge must get through the
 * project's default budget at full speed), written beside the local state so that its paths
 * resolve from there.
 */
async function benchConfig(): Promise<string> {
  const text = (await readFile(join(ROOT, "wrangler.jsonc"), "utf8")).replace(/^\s*\/\/.*$/gm, "");
  const config = JSON.parse(text);
  delete config.$schema;
  config.main = "../src/index.ts";
  for (const d1 of config.d1_databases) d1.migrations_dir = "../migrations";
  if (config.assets?.directory) config.assets.directory = join("..", config.assets.directory);
  // Swagger UI's copy is not what is measured; its build step would run from .wrangler/.
  delete config.build;
  const path = join(ROOT, ".wrangler", "bench-bridge.jsonc");
  // A fresh checkout has no .wrangler yet.
  await mkdir(join(ROOT, ".wrangler"), { recursive: true });
  await writeFile(path, JSON.stringify(config, null, 2));
  return path;
}

interface Peak {
  heapMb: number;
  rssMb: number;
}

function sampleMemory(): { stop(): Peak } {
  const peak = { heapMb: 0, rssMb: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.heapMb = Math.max(peak.heapMb, m.heapUsed / 2 ** 20);
    peak.rssMb = Math.max(peak.rssMb, m.rss / 2 ** 20);
  };
  const timer = setInterval(sample, 25);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** MariaDB's own counters, server-wide (the bridge is the only client while a workload runs). */
const STATUS = ["Questions", "Com_select", "Com_update", "Com_insert", "Innodb_rows_read", "Handler_read_rnd_next", "Bytes_sent"] as const;
type Status = Record<(typeof STATUS)[number], number>;

async function mariaStatus(maria: Awaited<ReturnType<typeof startMariaDb>>): Promise<Status> {
  const conn = await maria.root();
  const [rows] = await conn.query("SHOW GLOBAL STATUS WHERE Variable_name IN (?)", [STATUS]);
  await conn.end();
  const byName = new Map((rows as { Variable_name: string; Value: string }[]).map((r) => [r.Variable_name, Number(r.Value)]));
  return Object.fromEntries(STATUS.map((k) => [k, byName.get(k) ?? 0])) as Status;
}

/** The bridge's CLI in a process of its own, as an admin runs it; its requests counted by the preloaded count-requests.ts. */
async function runCli(args: string[], countsFile: string): Promise<{ wallS: number; counts: RequestCounts; summary: string }> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--import", join(ROOT, "bench/bridge/count-requests.ts"), join(ROOT, "bridge/cli.ts"), "--no-progress", ...args],
    { cwd: ROOT, env: { ...process.env, BRIDGE_BENCH_COUNTS: countsFile }, stdio: ["ignore", "pipe", "inherit"] },
  );
  let stdout = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  const wallS = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`the bridge exited ${code}: ${stdout}`);
  return { wallS, counts: JSON.parse(await readFile(countsFile, "utf8")) as RequestCounts, summary: stdout.trim() };
}

const per1000 = (n: number, results: number) => ((n * 1000) / results).toFixed(n * 1000 < results * 10 ? 2 : 0);

if (!mariadbAvailable()) {
  console.error(MARIADB_MISSING);
  process.exit(1);
}
const work = await mkdtemp(join(tmpdir(), "cobblestone-bench-bridge-"));
const [maria, server] = await Promise.all([startMariaDb(), benchConfig().then((c) => startWranglerDev(ADMIN, 120_000, c))]);
try {
  for (const w of WORKLOADS.filter((x) => !ONLY || ONLY.includes(x.name))) {
    const name = `bench_${w.name}_${w.results}`.replaceAll("-", "_");
    const reader = await createBoincDb(maria, name);
    const conn = await maria.root(name);
    await loadSyntheticProject(conn, w.results, w.perPass, w.secondsBetween, w.holders);
    if (w.boincTables) await widenToBoincTables(conn);
    if (w.writeBack)
      await conn.query("UPDATE result SET granted_credit = 0, mod_time = mod_time; UPDATE workunit SET canonical_credit = 0");
    await conn.end();
    const dsn = w.writeBack ? await writerDsn(maria, name) : reader;
    const slug = `bench-${w.name}-${w.results}`;
    const token = await createProject(server.base, ADMIN, slug);
    const stateFile = join(work, `${slug}.json`);
    const before = await mariaStatus(maria);
    let counts = emptyCounts();
    let elapsedS: number;
    let summary: string;
    let memoryText = "";
    if (w.cli) {
      const run = await runCli(
        [
          ...["--db", dsn, "--url", server.base, "--project", slug, "--token", token, "--state", stateFile],
          ...(w.writeBack ? ["--write-back", "--credit-by-app", "--switch-time", "0"] : []),
        ],
        join(work, `${slug}.counts.json`),
      );
      counts = run.counts;
      elapsedS = run.wallS;
      const at = (ms: number | null) => `${((ms ?? 0) / 1000).toFixed(1)} s`;
      summary = `${run.summary}; process start to exit ${run.wallS.toFixed(1)} s, to its first request ${at(counts.firstRequestMs)}, to its first pass request ${at(counts.firstPassMs)}`;
    } else {
      (globalThis as { gc?: () => void }).gc?.();
      const memory = sampleMemory();
      const original = globalThis.fetch;
      globalThis.fetch = countingFetch(original, counts);
      let report;
      try {
        report = await runBridge(
          bridgeOptions(
            { db: dsn, url: server.base, project: slug, token, stateFile },
            {
              progress: process.stderr.isTTY,
              ...(w.passesPerRequest ? { passesPerRequest: w.passesPerRequest } : {}),
              ...(w.writeBack ? { writeBack: true, creditByApp: true, switchTime: 0 } : {}),
            },
          ),
        );
      } finally {
        globalThis.fetch = original;
      }
      const peak = memory.stop();
      elapsedS = report.elapsed_s;
      const historySeconds = (Math.ceil(w.results / w.perPass) - 1) * w.secondsBetween + 1;
      const perDay = ((report.requests + report.rescales) * DAY) / historySeconds;
      summary =
        `${report.passes} passes in ${report.requests} requests, ${report.rescales} rescales, ${report.holders} hosts/users/teams sent; ${report.elapsed_s.toFixed(1)} s` +
        (report.write_back ? `; wrote back ${report.write_back.written} results (${report.write_back.retries} retried transactions)` : "") +
        `; ${Math.round(perDay).toLocaleString("en")} requests per day of history (passes and rescales)`;
      memoryText = `; peak heap ${peak.heapMb.toFixed(0)} MB, peak RSS ${peak.rssMb.toFixed(0)} MB`;
    }
    const after = await mariaStatus(maria);
    const times = [...counts.passMs].sort((a, b) => a - b);
    const mean = times.reduce((a, b) => a + b, 0) / Math.max(1, times.length);
    const kinds = Object.entries(counts.kinds)
      .sort((a, b) => b[1].ms - a[1].ms)
      .map(([k, v]) => `${k} ${per1000(v.n, w.results)} (${((100 * v.ms) / 1000 / elapsedS).toFixed(0)}% of the time)`)
      .join(", ");
    const db = (k: (typeof STATUS)[number]) => per1000(after[k] - before[k], w.results);
    console.log(
      `${w.name}: ${w.results.toLocaleString("en")} results (${w.perPass} every ${w.secondsBetween} s of history${w.cli ? ", the CLI timed whole" : ""}): ` +
        `${summary}; ${Math.round(w.results / elapsedS).toLocaleString("en")} results/s; pass request round trip mean ${mean.toFixed(0)} ms, ` +
        `p50 ${percentile(times, 0.5).toFixed(0)} ms, p95 ${percentile(times, 0.95).toFixed(0)} ms${memoryText}\n` +
        `  per 1,000 results: requests ${kinds}; MariaDB statements ${db("Questions")} (SELECT ${db("Com_select")}, UPDATE ${db("Com_update")}, INSERT ${db("Com_insert")}), ` +
        `rows read ${db("Innodb_rows_read")}, rows scanned without an index ${db("Handler_read_rnd_next")}, bytes sent ${db("Bytes_sent")}`,
    );
  }
} finally {
  await Promise.all([maria.stop(), server.stop(), rm(work, { recursive: true, force: true })]);
}
