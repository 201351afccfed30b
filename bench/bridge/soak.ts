/**
 * `npm run soak:bridge -- --minutes N`: the live bridge (`--write-back --follow`, a child process
 * restarted as systemd's Restart=on-failure and RestartPreventExitStatus=2 restart it:
 * soak-supervisor.ts) against MariaDB with BOINC's schema and a local service (`wrangler dev`
 * behind a proxy that can fail), while a second process acts as BOINC's daemons
 * (boinc-daemons.ts) and faults are injected on a schedule (soak-faults.ts). At the end (daemons
 * stopped, the bridge caught up and stopped with SIGTERM) it checks that every validated result
 * was credited exactly once and prints the report (soak-report.ts). A benchmark, not a test: it
 * exits 1 when a check fails.
 *
 * Options: --minutes N (5), --rate R validated results a second (20), --poll-every S (2),
 * --restart-sec S (2, systemd's RestartSec), --purge-after S (db_purge's age: half a cycle, 60
 * to 240 s), --stats-every S (update_stats, 30, 0 for none), --seed N (1), --no-faults, --faults
 * KIND,KIND (only those: lock-wait, mariadb-restart, service-5xx, bridge-sigkill,
 * service-unreachable), --keep (keep the work directory: logs, records; kept anyway when a
 * check fails).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { WRITEBACK_TABLE } from "../../bridge/database/write-back-tables";
import { startWranglerDev } from "../../test/browser/wrangler-dev";
import { createBoincDb } from "../../test/bridge/boinc-fixture";
import { MARIADB_MISSING, mariadbAvailable, startMariaDb } from "../../test/bridge/mariadb";
import { createProject } from "../../test/bridge/service";
import { writerDsn } from "../../test/bridge/write-back-check";
import { type Check, endChecks } from "./soak-checks";
import { readEndState, readHolders } from "./soak-end-state";
import { GuardWatch } from "./soak-guard-watch";
import { FaultProxy } from "./soak-fault-proxy";
import { FAULT_KINDS, type FaultKind, type FaultRun, LOCK_WAIT_TIMEOUT_S, faultSchedule, inject } from "./soak-faults";
import { loadSoakProject } from "./soak-project";
import { type DaemonCounts, readRecords } from "./soak-records";
import { reportText } from "./soak-report";
import { type BridgeProcess, BridgeSupervisor } from "./soak-supervisor";
import { unpaidCheck } from "./soak-unpaid";

const ROOT = new URL("../..", import.meta.url).pathname;
const ADMIN = "soak-bridge-admin";
const DB = "soak";
const PROJECT = "soak";
const CATCH_UP_MS = 300_000;
const STOP_MS = 120_000;

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "5" },
    rate: { type: "string", default: "20" },
    "poll-every": { type: "string", default: "2" },
    "restart-sec": { type: "string", default: "2" },
    "purge-after": { type: "string" },
    "stats-every": { type: "string", default: "30" },
    seed: { type: "string", default: "1" },
    "no-faults": { type: "boolean", default: false },
    faults: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const minutes = Number(values.minutes);
if (!(minutes > 0)) {
  console.error(`soak: --minutes must be a positive number, not '${values.minutes}'`);
  process.exit(2);
}
if (!mariadbAvailable()) {
  console.error(MARIADB_MISSING);
  process.exit(2);
}
const only = values.faults?.split(",") ?? null;
const unknown = only?.filter((k) => !(FAULT_KINDS as readonly string[]).includes(k)) ?? [];
if (unknown.length > 0) {
  console.error(`soak: unknown fault ${unknown.join(", ")} (--faults takes a list of: ${FAULT_KINDS.join(", ")})`);
  process.exit(2);
}
const faults = values["no-faults"] ? [] : faultSchedule(minutes, only as FaultKind[] | null);
// Longer than the longest outage's lag (a minute down, then the bridge's retry backoff), so that db_purge does not outrun the bridge.
const purgeAfter =
  values["purge-after"] ?? String(Math.round(Math.min(240, Math.max(60, (minutes * 60) / Math.max(1, Math.round(minutes / 10)) / 2))));

const work = await mkdtemp(join(tmpdir(), "cobblestone-soak-"));
/** When the daemons and the bridge started (after MariaDB, wrangler dev and the project were set up): the faults' clock. */
let startedAt = 0;
const say = (line: string) =>
  console.error(
    `[${new Date().toISOString().slice(11, 19)}${startedAt ? ` +${((Date.now() - startedAt) / 1000).toFixed(0)} s` : ""}] ${line}`,
  );
let ending = false;
process.on("SIGINT", () => {
  if (ending) process.exit(130);
  ending = true;
  say("SIGINT: ending the soak early (faults stop, then the end checks); SIGINT again to leave at once");
});

const sleepUntil = async (t: number) => {
  while (!ending && Date.now() < t) await new Promise((r) => setTimeout(r, Math.min(500, t - Date.now())));
};

say(`work directory ${work}; starting MariaDB and wrangler dev`);
const [maria, server] = await Promise.all([
  startMariaDb(60_000, [`--innodb-lock-wait-timeout=${LOCK_WAIT_TIMEOUT_S}`]),
  startWranglerDev(ADMIN),
]);
let daemons: ChildProcess | null = null;
let supervisor: BridgeSupervisor | null = null;
let proxy: FaultProxy | null = null;
let failed = true;
try {
  await createBoincDb(maria, DB);
  const setup = await maria.root(DB);
  await loadSoakProject(setup, Math.floor(Date.now() / 1000) - 86_400, Math.floor(Date.now() / 1000) - 60);
  const before = await readHolders(setup);
  await setup.end();
  const dsn = await writerDsn(maria, DB);
  const token = await createProject(server.base, ADMIN, PROJECT);
  proxy = await FaultProxy.start(server.base);
  // Before the first result: every result the daemons validate is the bridge's to credit.
  const switchTime = Math.floor(Date.now() / 1000) - 60;

  startedAt = Date.now();
  const recordsFile = join(work, "daemons.jsonl");
  // The bridge's metrics, for its count of unpaid results (soak-unpaid.ts).
  const metricsFile = join(work, "bridge.prom");
  const countsFile = join(work, "daemons-counts.json");
  daemons = spawn(
    process.execPath,
    [
      ...["--import", "tsx", join(ROOT, "bench/bridge/boinc-daemons.ts"), "--socket", maria.socket, "--database", DB],
      ...["--records", recordsFile, "--counts", countsFile, "--rate", values.rate!, "--purge-after", purgeAfter],
      ...["--stats-every", values["stats-every"]!, "--seed", values.seed!],
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  const daemonsLog = createWriteStream(join(work, "daemons.log"));
  daemons.stdout!.pipe(daemonsLog);
  daemons.stderr!.pipe(daemonsLog);
  const daemonsExited = new Promise<number | null>((r) => daemons!.once("exit", (code) => r(code)));

  supervisor = new BridgeSupervisor(
    {
      file: process.execPath,
      args: [
        ...[
          "--import",
          "tsx",
          "bridge/cli.ts",
          "--no-progress",
          "--url",
          proxy.base,
          "--project",
          PROJECT,
          "--state",
          join(work, "bridge-state.json"),
        ],
        ...["--write-back", "--switch-time", String(switchTime), "--follow", "--poll-every", values["poll-every"]!],
        ...["--metrics-file", metricsFile],
      ],
      cwd: ROOT,
      env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`, COBBLESTONE_TOKEN: token, BOINC_DB_URL: dsn },
    },
    work,
    Number(values["restart-sec"]) * 1000,
    say,
  );
  supervisor.start();
  const guard = new GuardWatch(() => maria.root(DB), DB, PROJECT, supervisor);
  say(
    `daemons at ${values.rate} results/s (db_purge after ${purgeAfter} s, update_stats every ${values["stats-every"]} s), bridge following through the proxy; ` +
      `${faults.length} faults planned over ${minutes} min: ${faults.map((f) => `${f.kind}@${f.at}s`).join(", ") || "none"}`,
  );

  const status = setInterval(async () => {
    const conn = await maria.root(DB).catch(() => null);
    const line = conn
      ? await conn
          .query(
            `SELECT (SELECT COUNT(*) FROM result WHERE validate_state = 1) AS valid, (SELECT COUNT(*) FROM ${WRITEBACK_TABLE}) AS written`,
          )
          .then(([rows]) => {
            const r = (rows as { valid: number; written: number }[])[0]!;
            return `${r.valid} valid results present, ${r.written} rows in ${WRITEBACK_TABLE}`;
          })
          .catch((e: Error) => `database: ${e.message}`)
      : "database down";
    await conn?.end().catch(() => undefined);
    const p = supervisor!.current;
    say(
      `status: ${line}; bridge ${p ? `#${p.n} up, RSS ${p.rss.at(-1)?.mb.toFixed(0) ?? "?"} MB` : "down"}, ${supervisor!.restarts} restarts`,
    );
  }, 60_000);

  const runs: FaultRun[] = [];
  for (const f of faults) {
    await sleepUntil(startedAt + f.at * 1000);
    if (ending) break;
    say(`fault: ${f.kind} (${f.durationS.toFixed(0)} s)`);
    const run = await inject(f, { restartMariaDb: (ms) => maria.restart(ms), proxy, bridge: supervisor, root: () => maria.root(DB) });
    runs.push(run);
    say(`fault over: ${run.kind}: ${run.note}`);
  }
  await sleepUntil(startedAt + minutes * 60_000);
  clearInterval(status);

  say("stopping the daemons (SIGTERM)");
  daemons.kill("SIGTERM");
  const daemonsCode = await daemonsExited;
  const daemonsStoppedAt = Date.now();
  say(`daemons exited ${daemonsCode}; waiting for the bridge to write back every valid result`);
  const caughtUpAt = await catchUp();
  say(
    caughtUpAt ? "caught up; stopping the bridge (SIGTERM)" : `not caught up after ${CATCH_UP_MS / 1000} s; stopping the bridge (SIGTERM)`,
  );
  guard.stop();
  const last = await supervisor.stop(STOP_MS);
  const endedAt = Date.now();

  const records = readRecords(recordsFile);
  const conn = await maria.root(DB);
  const end = await readEndState(conn, records, before);
  const unpaid = await unpaidCheck(conn, switchTime, metricsFile);
  await conn.end();
  const checks = [
    ...processChecks(supervisor.processes, last, caughtUpAt, daemonsCode, guard),
    ...endChecks(records, end, endedAt, proxy.counts),
    unpaid,
  ];
  failed = checks.some((c) => !c.ok);
  console.log(
    reportText({
      command: `npm run soak:bridge -- ${process.argv.slice(2).join(" ")}`.trim(),
      startedAt,
      daemonsStoppedAt,
      caughtUpAt,
      endedAt,
      load: loadavg(),
      faults: runs,
      processes: supervisor.processes,
      daemons: existsSync(countsFile) ? (JSON.parse(readFileSync(countsFile, "utf8")) as DaemonCounts) : null,
      proxy: proxy.counts,
      records,
      end,
      checks,
    }),
  );
} finally {
  if (daemons && daemons.exitCode === null && daemons.signalCode === null) daemons.kill("SIGKILL");
  await supervisor?.stop(5000);
  await proxy?.close();
  await Promise.all([maria.stop(), server.stop()]);
  if (failed || values.keep) say(`logs and records kept in ${work}`);
  else await rm(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

function mmss(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

/** Waits until every valid result still present has its row in the bridge's table; the time it did, or null. */
async function catchUp(): Promise<number | null> {
  const deadline = Date.now() + CATCH_UP_MS;
  while (Date.now() < deadline) {
    const conn = await maria.root(DB).catch(() => null);
    const left = await conn
      ?.query(
        `SELECT COUNT(*) AS n FROM result r LEFT JOIN ${WRITEBACK_TABLE} c ON c.result_id = r.id
         WHERE r.validate_state = 1 AND r.outcome = 1 AND c.result_id IS NULL`,
      )
      .then(([rows]) => Number((rows as { n: number }[])[0]!.n))
      .catch(() => null);
    await conn?.end().catch(() => undefined);
    if (left === 0) return Date.now();
    await new Promise((r) => setTimeout(r, 2000));
  }
  return null;
}

/** The bridge's processes: no refusal or bug among their ends, the guard held while writing, and the last one stopped cleanly after catching up. */
function processChecks(
  processes: BridgeProcess[],
  last: BridgeProcess | null,
  caughtUpAt: number | null,
  daemonsCode: number | null,
  guard: GuardWatch,
): Check[] {
  const failures = processes.filter((p) => p.failure);
  const unguarded = new Map<number, number[]>();
  for (const u of guard.unguarded) unguarded.set(u.process, [...(unguarded.get(u.process) ?? []), u.at]);
  return [
    {
      name: "no refusal, no bug: every restart was an outage's or a fault's",
      ok: failures.length === 0,
      lines: failures.slice(0, 10).map((p) => `#${p.n} ${p.exit}: ${p.failure}: ${p.cause}`),
    },
    {
      name: "the bridge held its run guard (the database lock) whenever it wrote back",
      ok: guard.unguarded.length === 0,
      lines: [
        `${guard.samples} samples of the lock, one every 10 s while a bridge process had run 15 s`,
        ...[...unguarded].map(
          ([n, times]) =>
            `process #${n} wrote back while no connection held the lock, from ${mmss(times[0]! - startedAt)} to ${mmss(times.at(-1)! - startedAt)} (${times.length} samples)`,
        ),
      ],
    },
    {
      name: "the bridge caught up, then stopped on SIGTERM with exit 0; the daemons stopped cleanly",
      ok: caughtUpAt !== null && last?.exit === "exit 0" && daemonsCode === 0,
      lines: [
        `caught up: ${caughtUpAt !== null}; last bridge process: ${last ? `${last.exit}, ${last.cause}` : "none"}; daemons: exit ${daemonsCode}`,
      ],
    },
  ];
}
