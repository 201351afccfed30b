/**
 * The switch-over while the project runs (issue 42, item 1), against a database that a second
 * process keeps validating into and touching as BOINC's daemons do (boinc-daemons.ts): BOINC
 * grants, the read-only bridge runs, the validator is stopped, the switch point T is taken, the
 * validator starts again with --no_credit, and the bridge starts with --write-back
 * --switch-time T --follow on the same state file. Results BOINC validated seconds before T have
 * their mod_time moved past T by the transitioner and the file deleter: no refusal, and every
 * result is credited exactly once, by BOINC or by the bridge. A validator that was not restarted
 * with --no_credit is still refused.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { bridgeOptions, runBridge } from "../../bridge/running/run";
import { smallBoincDb } from "./boinc-fixture";
import { startBridgeCli } from "./bridge-cli";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-switch-over-admin-token";
const ROOT = new URL("../..", import.meta.url).pathname;
const available = suiteNeeds("the switch-over while the project runs", import.meta.url, "mariadb-server", mariadbAvailable());
/** What boinc-daemons.ts's validator grants per result before the switch. */
const BOINC_CREDIT = 2.5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** boinc-daemons.ts as a child process, driven by its commands; `validated` collects its validations. */
function startDaemons(socket: string, database: string) {
  const child = spawn("node", ["--import", "tsx", "test/bridge/boinc-daemons.ts", socket, database], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}` },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const validated = new Map<number, number>();
  const acks: string[] = [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (line.startsWith("ok ")) acks.push(line.slice(3));
    else {
      const v = JSON.parse(line) as { validated: number; credit: number };
      validated.set(v.validated, v.credit);
    }
  });
  const command = async (cmd: string, ack = cmd) => {
    child.stdin!.write(cmd + "\n");
    for (let i = 0; i < 600 && !acks.includes(ack); i++) await sleep(50);
    if (!acks.includes(ack)) throw new Error(`boinc-daemons did not acknowledge ${cmd}`);
  };
  return { child, validated, command };
}

describe.skipIf(!available)("the switch-over while the project runs", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-switch-over-" });

  /** The database's clock, what T is read by (docs/bridge.md's checklist). */
  const dbNow = async (name: string) => {
    const conn = await rig.maria.root(name);
    const [rows] = await conn.query("SELECT UNIX_TIMESTAMP() AS t");
    await conn.end();
    return Number((rows as { t: number }[])[0]!.t);
  };

  /** BOINC grants for a few seconds, the read-only bridge runs, BOINC grants a few seconds more; then bin/stop and T. */
  async function beforeTheSwitch(name: string, slug: string) {
    const start = await dbNow("mysql");
    await smallBoincDb(rig.maria, name, start, []);
    const reader = `mysql://root@localhost/${name}?socket=${encodeURIComponent(rig.maria.socket)}`;
    const writer = await writerDsn(rig.maria, name);
    const token = await createProject(rig.server.base, ADMIN, slug);
    const stateFile = join(rig.work, `${slug}.json`);
    const daemons = startDaemons(rig.maria.socket, name);
    await daemons.command("grant");
    await sleep(4000);
    // The read-only bridge's last run (the cron job), then BOINC grants on until bin/stop.
    await runBridge(
      bridgeOptions({ db: reader, url: rig.server.base, project: slug, token, stateFile }, { rescaleEvery: 0, log: () => undefined }),
    );
    await sleep(3000);
    await daemons.command("stop");
    // T: after the last grant, by the database's clock.
    await sleep(1100);
    const T = await dbNow(name);
    await sleep(1100);
    return { daemons, writer, token, stateFile, T };
  }

  const cliArgs = (slug: string, stateFile: string, T: number) =>
    ["--url", rig.server.base, "--project", slug, "--state", stateFile, "--write-back", "--switch-time", String(T)].concat([
      "--follow",
      "--poll-every",
      "1",
    ]);

  it(
    "switches without a refusal while the daemons validate and touch rows, and credits every result once, by BOINC or by the bridge",
    { timeout: 300_000 },
    async () => {
      const { daemons, writer, token, stateFile, T } = await beforeTheSwitch("switch_ok", "switch-ok");
      // bin/start with --no_credit: the results reported meanwhile are validated now, granted nothing.
      await daemons.command("no_credit");
      const bridge = startBridgeCli(cliArgs("switch-ok", stateFile, T), { COBBLESTONE_TOKEN: token, BOINC_DB_URL: writer });
      await sleep(12_000);
      await daemons.command("quit", "done");
      expect(daemons.child.exitCode === null || daemons.child.exitCode === 0).toBe(true);

      const conn = await rig.maria.root("switch_ok");
      const rowsNow = async () =>
        (
          await conn.query(
            `SELECT r.id, r.granted_credit, UNIX_TIMESTAMP(r.mod_time) AS mod_time, r.received_time, w.canonical_credit, c.credit AS written
             FROM result r JOIN workunit w ON w.id = r.workunitid LEFT JOIN cobblestone_writeback c ON c.result_id = r.id WHERE r.validate_state = 1 ORDER BY r.id`,
          )
        )[0] as {
          id: number;
          granted_credit: number;
          mod_time: number;
          received_time: number;
          canonical_credit: number;
          written: number | null;
        }[];
      // The bridge catches up with the last validations.
      for (let i = 0; i < 200 && (await rowsNow()).some((r) => !(r.granted_credit > 0)) && bridge.child.exitCode === null; i++)
        await sleep(100);
      bridge.child.kill("SIGTERM");
      expect(await bridge.exited, bridge.stderr()).toBe(0);
      expect(bridge.stderr()).not.toMatch(/still grants/);

      const rows = await rowsNow();
      expect(rows).toHaveLength(daemons.validated.size);
      const boinc = rows.filter((r) => daemons.validated.get(r.id) === BOINC_CREDIT);
      const bridged = rows.filter((r) => daemons.validated.get(r.id) === 0);
      expect(boinc.length + bridged.length).toBe(rows.length);
      // The case at issue happened: results BOINC credited before T whose mod_time the daemons moved past T.
      expect(boinc.filter((r) => r.mod_time >= T).length).toBeGreaterThan(0);
      expect(boinc.every((r) => r.received_time < T)).toBe(true);
      // And the bridge had work on both sides of T's reports: a backlog reported before T, validated after it.
      expect(bridged.filter((r) => r.received_time < T).length).toBeGreaterThan(0);
      expect(bridged.filter((r) => r.received_time >= T).length).toBeGreaterThan(0);
      // Exactly once: BOINC's results keep its credit and were not written; every other one was written once, with its credit.
      expect(boinc.filter((r) => r.granted_credit !== BOINC_CREDIT || r.written !== null)).toEqual([]);
      expect(
        bridged.filter((r) => !(r.granted_credit > 0) || r.written !== r.granted_credit || r.canonical_credit !== r.granted_credit),
      ).toEqual([]);
      // The host holds each result's credit once: BOINC's additions and the bridge's.
      const [[host]] = (await conn.query("SELECT total_credit FROM host WHERE id = 7")) as unknown as [{ total_credit: number }[]];
      const sum = rows.reduce((s, r) => s + r.granted_credit, 0);
      expect(Math.abs(host!.total_credit - sum) / sum).toBeLessThan(1e-12);
      await conn.end();
    },
  );

  it("still refuses a validator that was not restarted with --no_credit, and credits nothing twice", { timeout: 300_000 }, async () => {
    const { daemons, writer, token, stateFile, T } = await beforeTheSwitch("switch_rogue", "switch-rogue");
    // bin/start without --no_credit: the validator goes on granting after T.
    await daemons.command("grant");
    await sleep(3000);
    const bridge = startBridgeCli(cliArgs("switch-rogue", stateFile, T), { COBBLESTONE_TOKEN: token, BOINC_DB_URL: writer });
    const code = await Promise.race([bridge.exited, sleep(120_000).then(() => "still running")]);
    await daemons.command("quit", "done");
    if (bridge.child.exitCode === null) bridge.child.kill("SIGKILL");
    expect(code, bridge.stderr()).toBe(2);
    expect(bridge.stderr()).toMatch(/a validator still grants/);
    const conn = await rig.maria.root("switch_rogue");
    const [rows] = await conn.query(
      "SELECT r.id, r.granted_credit, c.credit AS written FROM result r LEFT JOIN cobblestone_writeback c ON c.result_id = r.id WHERE r.validate_state = 1",
    );
    const results = rows as { id: number; granted_credit: number; written: number | null }[];
    // No result holds both credits: what BOINC granted was never written over.
    expect(results.filter((r) => r.granted_credit === BOINC_CREDIT && r.written !== null)).toEqual([]);
    const [[host]] = (await conn.query("SELECT total_credit FROM host WHERE id = 7")) as unknown as [{ total_credit: number }[]];
    const sum = results.reduce((s, r) => s + r.granted_credit, 0);
    expect(Math.abs(host!.total_credit - sum) / sum).toBeLessThan(1e-12);
    await conn.end();
  });
});
