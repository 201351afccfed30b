/**
 * `npx tsx bench/bridge/pack-start.ts`: what the installed bridge costs a BOINC server (issue 42).
 * Footprint: `npm run bridge:pack`, the tarball installed into an empty folder (as
 * test/bridge/pack.test.ts does), `du -sk` of it. Start: from spawning the command to the first
 * SQL statement a real MariaDB receives (its general log, microseconds) and to the first request
 * a stand-in service receives (it never answers, so the run stops there and is killed), for the
 * installed `cobblestone-bridge` on the machine's Node, and for the checkout's `node --import tsx
 * bridge/cli.ts` and `npm run bridge --` on the repository's Node 22; BRIDGE_START_RUNS (default
 * 10) runs of each, interleaved. Not a test: the figures depend on the machine's load.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { BOINC_TABLES } from "../../test/bridge/boinc-schema";
import { buildTarball, installTarball, machinePath, ROOT } from "../../test/bridge/installed-bridge";
import { MARIADB_MISSING, mariadbAvailable, startMariaDb } from "../../test/bridge/mariadb";

const RUNS = Number(process.env.BRIDGE_START_RUNS ?? 10);
const PASSWORD = "start";

if (!mariadbAvailable()) {
  console.error(MARIADB_MISSING);
  process.exit(1);
}
const du = async (dir: string) => Number((await promisify(execFile)("du", ["-sk", dir])).stdout.split("\t")[0]);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const work = await mkdtemp(join(tmpdir(), "cobblestone-bench-start-"));
const maria = await startMariaDb();
const firstRequest: { at: number | null } = { at: null };
// The service stand-in: notes the first request and holds it, so the bridge waits there.
const service = createServer(() => (firstRequest.at ??= Date.now()));
try {
  const loadBefore = load();
  const tarball = await buildTarball();
  const bin = await installTarball(tarball, join(work, "opt"));
  const footprint = { tarballKiB: Math.round((await stat(tarball)).size / 1024), installedKiB: await du(join(work, "opt")) };
  const checkoutKiB = await du(join(ROOT, "node_modules/"));

  const root = await maria.root();
  // BOINC's tables, empty: the bridge checks them, then waits on the service.
  await root.query(`CREATE DATABASE boinc; USE boinc; ${BOINC_TABLES}`);
  await root.query("SET GLOBAL log_output = 'TABLE'; SET GLOBAL general_log = 'ON'");
  await new Promise<void>((r) => service.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  const checkoutEnv = { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`, HOME: work };
  const ways: Record<string, (args: string[]) => [string, string[], NodeJS.ProcessEnv]> = {
    "cobblestone-bridge (installed, machine's Node)": (args) => [bin, args, { PATH: machinePath(), HOME: work }],
    "node --import tsx bridge/cli.ts (checkout, Node 22)": (args) => [
      join(ROOT, "node_modules/.bin/node"),
      ["--import", "tsx", "bridge/cli.ts", ...args],
      checkoutEnv,
    ],
    "npm run bridge -- (checkout, Node 22)": (args) => ["npm", ["run", "-s", "bridge", "--", ...args], checkoutEnv],
  };
  let run = 0;

  /** Milliseconds from the spawn to the first SQL statement and to the first request to the service. */
  async function once(way: string): Promise<{ query: number; request: number }> {
    // A database account, project and state file of its own for each run: the general log tells
    // its statements from a killed run's last ones, and no run waits on a killed one's locks.
    const user = `bench_${++run}`;
    await root.query(`CREATE USER '${user}'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}'; GRANT SELECT ON boinc.* TO '${user}'@'127.0.0.1'`);
    const args = ["--url", url, "--project", `bench-${run}`, "--state", join(work, `state-${run}.json`), "--no-progress"];
    const [command, argv, env] = ways[way]!(args);
    const secrets = { COBBLESTONE_TOKEN: "cbp_bench", BOINC_DB_URL: `mysql://${user}:${PASSWORD}@127.0.0.1:${maria.port}/boinc` };
    firstRequest.at = null;
    const started = Date.now();
    const child = spawn(command, argv, { cwd: ROOT, env: { ...env, ...secrets }, stdio: ["ignore", "ignore", "pipe"], detached: true });
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    const deadline = started + 30_000;
    let query: number | null = null;
    while ((query === null || firstRequest.at === null) && child.exitCode === null && Date.now() < deadline) {
      const [rows] = await root.query(
        "SELECT UNIX_TIMESTAMP(MIN(event_time)) * 1000 AS at FROM mysql.general_log WHERE command_type = 'Query' AND user_host LIKE ?",
        [`${user}[${user}]%`],
      );
      const at = (rows as { at: string | null }[])[0]!.at;
      if (at !== null) query = Number(at);
      await new Promise((r) => setTimeout(r, 5));
    }
    // npm starts the bridge as its child: the whole group goes.
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      process.kill(-child.pid!, "SIGKILL");
      await exited;
    }
    if (query === null || firstRequest.at === null) throw new Error(`${way}: no query or no request (exit ${child.exitCode}):\n${stderr}`);
    return { query: query - started, request: firstRequest.at - started };
  }

  const times = new Map(Object.keys(ways).map((w) => [w, [] as { query: number; request: number }[]]));
  for (let i = 0; i < RUNS; i++) for (const way of Object.keys(ways)) times.get(way)!.push(await once(way));
  await root.end();

  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `${s[Math.floor(s.length / 2)]!.toFixed(0)} (${s[0]!.toFixed(0)}–${s.at(-1)!.toFixed(0)})`;
  };
  console.log(`${new Date().toISOString()}; load average before ${loadBefore}, after ${load()}; ${RUNS} runs of each, interleaved`);
  console.log(
    `footprint: tarball ${footprint.tarballKiB} KiB; installed ${footprint.installedKiB} KiB (du -sk); the checkout's node_modules ${checkoutKiB} KiB`,
  );
  console.log(
    "\n| command | ms to the first SQL statement: median (min–max) | ms to the first request to the service |\n| --- | ---: | ---: |",
  );
  for (const [way, ts] of times) console.log(`| ${way} | ${stats(ts.map((t) => t.query))} | ${stats(ts.map((t) => t.request))} |`);
} finally {
  service.closeAllConnections();
  service.close();
  await maria.stop();
  await rm(work, { recursive: true, force: true });
}
