/**
 * `npx tsx bench/bridge/follow-lag.ts`: the lag of `--follow --write-back` behind the validator
 * on this machine. A validator stand-in inserts BRIDGE_LAG_RATE (default 5) validated results a
 * second, granted nothing (as --no_credit leaves them), for BRIDGE_LAG_SECONDS (default 60);
 * the bridge follows with --poll-every BRIDGE_LAG_POLL (default 2) and reports, per result, the
 * seconds from its mod_time (whole seconds: up to 1 s of it is the truncation) to the commit of
 * its write-back. Not a test: the figure depends on the machine's load (BENCHMARKS.md).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { bridgeOptions, runBridge } from "../../bridge/running/run";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import { startWranglerDev } from "../../test/browser/wrangler-dev";
import { smallBoincDb } from "../../test/bridge/boinc-fixture";
import { MARIADB_MISSING, mariadbAvailable, startMariaDb } from "../../test/bridge/mariadb";
import { createProject } from "../../test/bridge/service";
import { writerDsn } from "../../test/bridge/write-back-check";

const RATE = Number(process.env.BRIDGE_LAG_RATE ?? 5);
const SECONDS = Number(process.env.BRIDGE_LAG_SECONDS ?? 60);
const POLL = Number(process.env.BRIDGE_LAG_POLL ?? 2);
const ADMIN = "bench-follow-admin";

if (!mariadbAvailable()) {
  console.error(MARIADB_MISSING);
  process.exit(1);
}
const work = await mkdtemp(join(tmpdir(), "cobblestone-bench-follow-"));
const [maria, server] = await Promise.all([startMariaDb(), startWranglerDev(ADMIN)]);
try {
  const start = Math.floor(Date.now() / 1000);
  await smallBoincDb(maria, "lag", start, []);
  const dsn = await writerDsn(maria, "lag");
  const token = await createProject(server.base, ADMIN, "lag");
  const stop = new AbortController();
  const run = runBridge(
    bridgeOptions(
      { db: dsn, url: server.base, project: "lag", token, stateFile: join(work, "lag.json") },
      {
        rescaleEvery: 0,
        writeBack: true,
        switchTime: start - 60,
        follow: { pollSeconds: POLL },
        signal: stop.signal,
        log: () => undefined,
      },
    ),
  );
  const conn = await maria.root("lag");
  let id = 0;
  const end = Date.now() + SECONDS * 1000;
  while (Date.now() < end) {
    const second = Date.now();
    const now = Math.floor(second / 1000);
    for (let i = 0; i < RATE; i++) {
      id++;
      await conn.query(
        "INSERT INTO workunit (id, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults) VALUES (?, 1, ?, 1e13, 1e14, 1)",
        [id, `wu${id}`],
      );
      await conn.query(
        "INSERT INTO result (id, workunitid, outcome, hostid, userid, teamid, sent_time, received_time, cpu_time, validate_state, granted_credit, elapsed_time, flops_estimate, app_version_id) VALUES (?, ?, ?, 7, 3, 5, ?, ?, 900, ?, 0, 1000, 1e10, 1)",
        [id, id, OUTCOME.success, now - 5000, now - 10, VALIDATE_STATE.valid],
      );
    }
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - second))));
  }
  // Let it catch up, then stop it as systemd would.
  const written = async () => Number(((await conn.query("SELECT COUNT(*) AS n FROM cobblestone_writeback"))[0] as { n: number }[])[0]!.n);
  for (let i = 0; i < 600 && (await written()) < id; i++) await new Promise((r) => setTimeout(r, 100));
  stop.abort();
  const report = await run;
  await conn.end();
  console.log(
    `follow --write-back, poll every ${POLL} s, ${RATE} results/s for ${SECONDS} s (load average ${loadavg()[0]!.toFixed(1)}): ` +
      `${report.write_back!.written} of ${id} results written back; lag from mod_time to the written credit ` +
      `mean ${report.lag!.mean_s.toFixed(2)} s, max ${report.lag!.max_s.toFixed(2)} s (${report.lag!.n} results)`,
  );
} finally {
  await Promise.all([maria.stop(), server.stop(), rm(work, { recursive: true, force: true })]);
}
