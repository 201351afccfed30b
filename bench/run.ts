/**
 * `npm run bench`: the benchmarks of BENCHMARKS.md, in one run on this machine.
 *   1. ingest through `wrangler dev` (passes of 1, 10, 100, 1,000 workunits, many clients)
 *   2. the same passes on better-sqlite3 in one process: the storage limit, and statements
 *   3. public reads from KV, and the web pages built from them
 *   4. the cron's rescale at 10, 1,000 and 10,000 app versions with 100,000 hosts
 *   5. ingest by credit policy, "boinc" against "fair" (bench/policies.ts)
 *   6. cost: D1 rows read and written, and bytes stored, per validated result (bench/cost.ts)
 * `--quick` runs a tenth of the ingest, to try the harness; `--policies` only section 5.
 * Results: bench/results/.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { type RunStats, drive, getOk, postJson } from "./client";
import { RESCALE_HOSTS, RESCALE_SIZES, rescaleToken, writeRescaleFixture } from "./rescale-fixture";
import { ADMIN_TOKEN, freshStateDir, prepareState, startServer } from "./server";
import { phaseBodies } from "./phases";
import { type BenchSummary, policyTable, report } from "./report";
import type { LimitRow } from "./sqlite-limit";
import { APPS, passes, versions } from "./workload";
import { type PolicyRow, ingestByPolicy } from "./policies";
import { measureCost } from "./cost";

const root = new URL("..", import.meta.url).pathname;
const quick = process.argv.includes("--quick");
const policiesOnly = process.argv.includes("--policies");
const CLIENTS = 8;
const NOW = Math.floor(Date.now() / 1000) - 60;

const log = (...args: unknown[]) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...args);
const round = (x: number, digits = 1) => Number(x.toFixed(digits));

/** Sets up the project; returns its one token, which posts every pass as a real validator does. */
async function setupProject(url: string): Promise<string> {
  const { token } = await postJson(url, `/v1/projects`, ADMIN_TOKEN, { slug: "bench", name: "Bench@Home" });
  for (const a of APPS) await postJson(url, `/v1/projects/bench/apps/${a.name}`, token, {}, "PUT");
  for (const v of versions()) {
    const { flops: _f, id, ...body } = v;
    await postJson(url, `/v1/projects/bench/app-versions/${id}`, token, body, "PUT");
  }
  return token;
}

interface IngestRow extends RunStats {
  readonly size: number;
  readonly results: number;
  readonly resultsPerSecond: number;
}

async function ingest(url: string, token: string): Promise<{ rows: IngestRow[]; single1000: RunStats }> {
  const rows: IngestRow[] = [];
  for (const phase of phaseBodies(quick, NOW)) {
    log(`ingest: ${phase.passes} passes of ${phase.size} workunits, ${CLIENTS} clients`);
    const stats = await drive(phase.bodies(), CLIENTS, (body) => postJson(url, `/v1/projects/bench/passes`, token, body));
    const results = phase.passes * phase.size * 2;
    rows.push({ ...stats, size: phase.size, results, resultsPerSecond: results / stats.seconds });
    log(`  ${Math.round(results / stats.seconds)} results/s, p50 ${round(stats.p50)} ms, p99 ${round(stats.p99)} ms`);
  }
  // One 1,000-workunit pass at a time: the latency of a big pass on its own.
  const solo = passes(Array(quick ? 2 : 5).fill(1000), { seed: 9, firstWu: 10_000_000, now: NOW });
  const single1000 = await drive(solo, 1, (body) => postJson(url, `/v1/projects/bench/passes`, token, body));
  log(`  a lone 1,000-workunit pass: p50 ${round(single1000.p50)} ms, max ${round(single1000.max)} ms`);
  return { rows, single1000 };
}

/**
 * A Node that can load better-sqlite3: the one running this, or else another on the PATH (the
 * addon is compiled for the Node whose headers npm builds against, which may be the system's).
 */
function nodeForSqlite(): string {
  const candidates = [
    process.execPath,
    ...execFileSync("which", ["-a", "node"], { encoding: "utf8" })
      .split("\n")
      .filter((p) => p && !p.includes("node_modules")),
  ];
  for (const node of candidates) {
    const probe = spawnSync(node, ["-e", "new (require('better-sqlite3'))(':memory:').close()"], { cwd: root });
    if (probe.status === 0) return node;
  }
  throw new Error(`no Node on this machine loads better-sqlite3 (tried ${candidates.join(", ")})`);
}

async function limit(): Promise<{ node: string; rows: LimitRow[] }> {
  const node = nodeForSqlite();
  log(`limit: the same passes through the pass code on better-sqlite3, one process (${node})`);
  const out = execFileSync(
    node,
    [join(root, "node_modules/tsx/dist/cli.mjs"), join(root, "bench/limit-main.ts"), String(NOW), ...(quick ? ["--quick"] : [])],
    {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 1 << 26,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const result = JSON.parse(out) as { node: string; rows: LimitRow[] };
  for (const r of result.rows) {
    log(
      `  passes of ${r.size}: ${Math.round(r.results / r.seconds)} results/s all in, ${Math.round(r.results / r.writeSeconds)} results/s of writes, ${round(r.statementsPerWorkunit, 2)} statements/workunit (${round(r.statementsPerPass)} per pass)`,
    );
  }
  return result;
}

async function reads(url: string): Promise<Record<string, { latency: RunStats; throughput: RunStats }>> {
  log("reads: the minute cron writes the snapshots, then every key is read once (fills), then measured");
  for (let i = 0; i < 5; i++) await getOk(`${url}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*`);
  // The leaderboard's answer as far as read here: `{ users | hosts | teams: [{ id, … }] }`.
  const ids = async (kind: "users" | "hosts" | "teams") => {
    const board = (await (await fetch(`${url}/v1/projects/bench/top/${kind}?by=total_credit&limit=300`)).json()) as Record<
      typeof kind,
      { id: number }[]
    >;
    return board[kind].map((e) => e.id);
  };
  const targets: Record<string, string[]> = {
    // The floor: a route that reads nothing (wrangler dev's own cost per request).
    health: ["/health"],
    user: (await ids("users")).map((id: number) => `/v1/projects/bench/users/${id}`),
    host: (await ids("hosts")).map((id: number) => `/v1/projects/bench/hosts/${id}`),
    team: (await ids("teams")).map((id: number) => `/v1/projects/bench/teams/${id}`),
    leaderboard: ["users", "hosts", "teams"].flatMap((k) =>
      ["expavg_credit", "total_credit"].map((by) => `/v1/projects/bench/top/${k}?by=${by}&limit=100`),
    ),
    // The web pages (HTML, SVG chart drawn per request): the budget is 50 ms a render.
    page_user: (await ids("users")).map((id: number) => `/p/bench/users/${id}?days=365`),
    page_project: ["/p/bench", "/p/bench?by=total_credit", "/p/bench?days=365"],
    page_home: ["/"],
  };
  for (const paths of Object.values(targets)) await drive(paths, 8, (p) => getOk(`${url}${p}`));
  await new Promise((r) => setTimeout(r, 1000));
  // Latency with one client (a reader on a quiet server), then throughput with 16 at once
  // (on 2 cores that is mostly queueing, so its latencies say little).
  const out: Record<string, { latency: RunStats; throughput: RunStats }> = {};
  for (const [kind, paths] of Object.entries(targets)) {
    const requests = (n: number) => Array.from({ length: n }, (_, i) => paths[i % paths.length]!);
    const latency = await drive(requests(1000), 1, (p) => getOk(`${url}${p}`));
    const throughput = await drive(requests(3000), 16, (p) => getOk(`${url}${p}`));
    out[kind] = { latency, throughput };
    log(
      `  ${kind}: one client p50 ${round(latency.p50, 2)} ms, p99 ${round(latency.p99, 2)} ms; ` +
        `16 clients ${Math.round(throughput.requests / throughput.seconds)} req/s`,
    );
  }
  return out;
}

async function rescale(): Promise<{ versions: number; ms: number[] }[]> {
  const state = freshStateDir();
  const fixture = join(state, "rescale.sql");
  writeRescaleFixture(fixture);
  log(`rescale: loading ${RESCALE_SIZES.join(", ")} app versions and ${RESCALE_HOSTS} hosts into a fresh local D1`);
  prepareState(state, fixture);
  const server = await startServer(8792, state);
  const out = [];
  try {
    for (const n of RESCALE_SIZES) {
      const ms: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await postJson(server.url, `/v1/projects/rescale-${n}/rescale`, rescaleToken(n), {});
        ms.push(performance.now() - t);
      }
      ms.sort((a, b) => a - b);
      out.push({ versions: n, ms });
      log(`  ${n} app versions: median ${round(ms[2]!)} ms (runs: ${ms.map((x) => round(x)).join(", ")})`);
    }
  } finally {
    await server.stop();
  }
  return out;
}

async function policies(): Promise<PolicyRow[]> {
  log("ingest by credit policy: passes of 100 workunits, boinc and fair in alternating rounds");
  const state = freshStateDir();
  prepareState(state);
  const server = await startServer(8793, state);
  try {
    return await ingestByPolicy(server.url, NOW, CLIENTS, quick, log);
  } finally {
    await server.stop();
  }
}

async function main() {
  if (policiesOnly) {
    const rows = await policies();
    mkdirSync(join(root, "bench/results"), { recursive: true });
    writeFileSync(join(root, "bench/results/policies.json"), JSON.stringify(rows, null, 2));
    writeFileSync(join(root, "bench/results/policies.md"), policyTable(rows).join("\n") + "\n");
    log(policyTable(rows).join("\n"));
    return;
  }
  const machine = {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryGiB: round(totalmem() / 2 ** 30),
    node: process.version,
    date: new Date().toISOString(),
    quick,
  };
  log("machine:", machine);
  const state = freshStateDir();
  prepareState(state);
  const server = await startServer(8791, state);
  let ingestResult, readResult, memory;
  try {
    const token = await setupProject(server.url);
    ingestResult = await ingest(server.url, token);
    memory = server.peakMemoryMiB();
    log(`peak memory of workerd during ingest: ${round(memory)} MiB`);
    readResult = await reads(server.url);
  } finally {
    await server.stop();
  }
  const limitRun = await limit();
  const limitRows = limitRun.rows;
  const rescaleRows = await rescale();
  const policyRows = await policies();
  log("cost: the same passes on wrangler's local D1, metered from each statement's meta");
  const cost = await measureCost(root, NOW, quick);
  if (!quick) writeFileSync(join(root, "bench/results/cost.json"), JSON.stringify(cost, null, 2));

  const byHundred = (rows: readonly { size: number }[]) => rows.find((r) => r.size === 100);
  const ingest100 = byHundred(ingestResult.rows) as IngestRow;
  const limit100 = byHundred(limitRows) as LimitRow;
  const summary = {
    machine,
    ingest: ingestResult.rows,
    single1000: ingestResult.single1000,
    peakMemoryMiB: memory,
    limit: limitRows,
    limitNode: limitRun.node,
    ratioTo: {
      storageWrites: ingest100.resultsPerSecond / (limit100.results / limit100.writeSeconds),
      wholePassCode: ingest100.resultsPerSecond / (limit100.results / limit100.seconds),
    },
    reads: readResult,
    rescale: rescaleRows,
    policies: policyRows,
    cost,
  };
  mkdirSync(join(root, "bench/results"), { recursive: true });
  const file = join(root, `bench/results/${quick ? "quick" : "latest"}.json`);
  writeFileSync(file, JSON.stringify(summary, null, 2));
  writeFileSync(file.replace(/\.json$/, ".md"), report(summary as BenchSummary));
  log(
    `ratio of ingest (passes of 100) to the storage limit: ${round(100 * summary.ratioTo.storageWrites)}% of the writes alone, ${round(100 * summary.ratioTo.wholePassCode)}% of the whole pass code in Node`,
  );
  log(`written ${file}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
