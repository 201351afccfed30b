/**
 * `npm run bench:bridge`: backfill throughput of the bridge from MariaDB into `wrangler dev` on
 * this machine, and its peak memory at two sizes (flat if it streams). BRIDGE_BENCH_RESULTS
 * (default 100,000) and BRIDGE_BENCH_PER_SECOND (results decided per second of history,
 * default 100) size the synthetic project.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bridgeOptions, runBridge } from "../../bridge/run";
import { startWranglerDev } from "../../test/browser/wrangler-dev";
import { createBoincDb } from "../../test/bridge/boinc-fixture";
import { MARIADB_MISSING, mariadbAvailable, startMariaDb } from "../../test/bridge/mariadb";
import { createProject } from "../../test/bridge/service";
import { loadSyntheticProject } from "./synthetic-boinc";

const ROOT = new URL("../..", import.meta.url).pathname;
const RESULTS = Number(process.env.BRIDGE_BENCH_RESULTS ?? 100_000);
const PER_SECOND = Number(process.env.BRIDGE_BENCH_PER_SECOND ?? 100);
const ADMIN = "bench-bridge-admin";

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
  for (const size of [Math.round(RESULTS / 4), RESULTS]) {
    const name = `bench_${size}`;
    const dsn = await createBoincDb(maria, name);
    const conn = await maria.root(name);
    await loadSyntheticProject(conn, size, PER_SECOND);
    await conn.end();
    const slug = `bench-${size}`;
    const token = await createProject(server.base, ADMIN, slug);
    (globalThis as { gc?: () => void }).gc?.();
    const memory = sampleMemory();
    const report = await runBridge(
      bridgeOptions({ db: dsn, url: server.base, project: slug, token, stateFile: join(work, `${slug}.json`) }, { progress: process.stderr.isTTY }),
    );
    const peak = memory.stop();
    console.log(
      `${size.toLocaleString("en")} results (${PER_SECOND} per second of history): ${report.passes} passes, ${report.rescales} rescales, ` +
        `${report.holders} hosts/users/teams registered in ${report.elapsed_s.toFixed(1)} s = ` +
        `${Math.round(report.results / report.elapsed_s).toLocaleString("en")} results/s; peak heap ${peak.heapMb.toFixed(0)} MB, peak RSS ${peak.rssMb.toFixed(0)} MB`,
    );
  }
} finally {
  await Promise.all([maria.stop(), server.stop(), rm(work, { recursive: true, force: true })]);
}
