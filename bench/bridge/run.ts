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
 * BRIDGE_BENCH_ONLY=sparse,sparse-unbatched picks workloads by name.
 * Each line also gives the pass requests' round trip as the bridge saw it (the deployment
 * estimate in BENCHMARKS.md starts from it) and the requests per day of history.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bridgeOptions, runBridge } from "../../bridge/run";
import { startWranglerDev } from "../../test/browser/wrangler-dev";
import { createBoincDb } from "../../test/bridge/boinc-fixture";
import { MARIADB_MISSING, mariadbAvailable, startMariaDb } from "../../test/bridge/mariadb";
import { createProject } from "../../test/bridge/service";
import { writerDsn } from "../../test/bridge/write-back-check";
import { loadSyntheticProject } from "./synthetic-boinc";

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
}

const WORKLOADS: Workload[] = [
  { name: "dense", results: Math.round(RESULTS / 4), perPass: PER_SECOND, secondsBetween: 10 },
  { name: "dense-writeback", results: Math.round(RESULTS / 4), perPass: PER_SECOND, secondsBetween: 10, writeBack: true },
  { name: "dense", results: RESULTS, perPass: PER_SECOND, secondsBetween: 10 },
  { name: "sparse", results: SPARSE_RESULTS, perPass: 2, secondsBetween: 1 },
  // The same history one pass per request, as before POST /pass-batches: what batching gains, under the same load.
  { name: "sparse-unbatched", results: Math.round(SPARSE_RESULTS / 4), perPass: 2, secondsBetween: 1, passesPerRequest: 1 },
];

/** BRIDGE_BENCH_ONLY=sparse,sparse-unbatched runs only those workloads (all by default). */
const ONLY = process.env.BRIDGE_BENCH_ONLY?.split(",");

/** The round trip of every pass request the bridge makes (it sends them one at a time). */
function timePassRequests(): { stop(): number[] } {
  const original = globalThis.fetch;
  const times: number[] = [];
  globalThis.fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.includes("/pass-batches")) return original(input, init);
    const started = performance.now();
    const response = await original(input, init);
    const body = await response.arrayBuffer();
    times.push(performance.now() - started);
    return new Response(body, response);
  };
  return {
    stop: () => {
      globalThis.fetch = original;
      return times;
    },
  };
}

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

if (!mariadbAvailable()) {
  console.error(MARIADB_MISSING);
  process.exit(1);
}
const work = await mkdtemp(join(tmpdir(), "cobblestone-bench-bridge-"));
const [maria, server] = await Promise.all([startMariaDb(), benchConfig().then((c) => startWranglerDev(ADMIN, 120_000, c))]);
try {
  for (const w of WORKLOADS.filter((x) => !ONLY || ONLY.includes(x.name))) {
    const name = `bench_${w.name}_${w.results}`;
    const reader = await createBoincDb(maria, name);
    const conn = await maria.root(name);
    await loadSyntheticProject(conn, w.results, w.perPass, w.secondsBetween);
    if (w.writeBack)
      await conn.query("UPDATE result SET granted_credit = 0, mod_time = mod_time; UPDATE workunit SET canonical_credit = 0");
    await conn.end();
    const dsn = w.writeBack ? await writerDsn(maria, name) : reader;
    const slug = `bench-${w.name}-${w.results}`;
    const token = await createProject(server.base, ADMIN, slug);
    (globalThis as { gc?: () => void }).gc?.();
    const memory = sampleMemory();
    const requests = timePassRequests();
    const report = await runBridge(
      bridgeOptions(
        { db: dsn, url: server.base, project: slug, token, stateFile: join(work, `${slug}.json`) },
        {
          progress: process.stderr.isTTY,
          ...(w.passesPerRequest ? { passesPerRequest: w.passesPerRequest } : {}),
          ...(w.writeBack ? { writeBack: true, creditByApp: true, switchTime: 0 } : {}),
        },
      ),
    );
    const times = requests.stop().sort((a, b) => a - b);
    const peak = memory.stop();
    const historySeconds = (Math.ceil(w.results / w.perPass) - 1) * w.secondsBetween + 1;
    const perDay = ((report.requests + report.rescales) * DAY) / historySeconds;
    const mean = times.reduce((a, b) => a + b, 0) / Math.max(1, times.length);
    console.log(
      `${w.name}: ${w.results.toLocaleString("en")} results (${w.perPass} every ${w.secondsBetween} s of history): ${report.passes} passes in ` +
        `${report.requests} requests, ${report.rescales} rescales, ${report.holders} hosts/users/teams sent; ${report.elapsed_s.toFixed(1)} s = ` +
        `${Math.round(report.rows / report.elapsed_s).toLocaleString("en")} results/s; pass request round trip mean ${mean.toFixed(0)} ms, ` +
        `p50 ${percentile(times, 0.5).toFixed(0)} ms, p95 ${percentile(times, 0.95).toFixed(0)} ms (${(report.passes / Math.max(1, report.requests)).toFixed(1)} passes each); ` +
        `${Math.round(perDay).toLocaleString("en")} requests per day of history (passes and rescales); peak heap ${peak.heapMb.toFixed(0)} MB, peak RSS ${peak.rssMb.toFixed(0)} MB` +
        (report.write_back ? `; wrote back ${report.write_back.written} results (${report.write_back.retries} retried transactions)` : ""),
    );
  }
} finally {
  await Promise.all([maria.stop(), server.stop(), rm(work, { recursive: true, force: true })]);
}
