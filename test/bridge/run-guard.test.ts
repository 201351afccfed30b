/**
 * The one-run guard holds for a whole --follow run (issue 42 item 2): the database lock's
 * connection is kept alive past wait_timeout, taken again when the server closes it, and a run
 * that finds another run holding it stops (exit 76) before it posts or writes anything more.
 */
import { join } from "node:path";
import type mysql from "mysql2/promise";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { RunGuard, runLockName } from "../../bridge/running/run-guard";
import { smallBoincDb } from "./boinc-fixture";
import { noCreditResult, startBridgeCli, validateNoCredit } from "./bridge-cli";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-run-guard-admin-token";
const available = suiteNeeds("the bridge's one-run guard", import.meta.url, "mariadb-server", mariadbAvailable());
/** MariaDB's default wait_timeout, put back after a test shortened it. */
const DEFAULT_WAIT_TIMEOUT = 28800;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `ready` (polled every 100 ms), failing with `what` after `ms`. */
async function until(what: string, ready: () => Promise<boolean>, ms = 30_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await ready()); await sleep(100)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

const one = async <T>(conn: mysql.Connection, sql: string, values: unknown[] = []): Promise<T> =>
  ((await conn.query(sql, values))[0] as T[])[0]!;

describe.skipIf(!available)("the bridge's one-run guard", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-run-guard-" });

  /** Who holds the project's lock now (a connection id), or null. */
  const holder = async (root: mysql.Connection, database: string, project: string) =>
    (await one<{ h: number | null }>(root, "SELECT IS_USED_LOCK(?) AS h", [runLockName(database, project)])).h;

  it("the heartbeat keeps the guard's session past its wait_timeout; without it, the lock is taken again on a new connection", async () => {
    const dsn = await smallBoincDb(rig.maria, "heartbeat", 1_700_000_000, []);
    const root = await rig.maria.root();
    const lines: string[] = [];
    // A session timeout of 2 s, checked every 0.5 s: 4 s later the same connection holds the lock.
    const kept = await RunGuard.take(dsn, "heartbeat", "kept", { sessionTimeoutS: 2, heartbeatMs: 500, log: (l) => lines.push(l) });
    const first = await holder(root, "heartbeat", "kept");
    await sleep(4000);
    expect(await holder(root, "heartbeat", "kept")).toBe(first);
    expect(kept.held).toBe(true);
    await kept.release();
    expect(await holder(root, "heartbeat", "kept")).toBeNull();

    // No heartbeat: the server closes the idle session after 2 s, and the guard takes the lock again at once.
    const idle = await RunGuard.take(dsn, "heartbeat", "idle", { sessionTimeoutS: 2, heartbeatMs: 0, log: (l) => lines.push(l) });
    const before = await holder(root, "heartbeat", "idle");
    await until("the lock taken again", async () => ![null, before].includes(await holder(root, "heartbeat", "idle")));
    await idle.ensureHeld();
    expect(idle.held).toBe(true);
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^guard: its connection \\(id ${before}\\) was closed [23] s after its last answer .*; took the lock again`),
      ),
    );
    await idle.release();
    await root.end();
  });

  it(
    "a --follow run polling less often than wait_timeout keeps its guard: a second run is refused (exit 76)",
    { timeout: 120_000 },
    async () => {
      await smallBoincDb(rig.maria, "idle_follow", 1_700_000_000, [{}, {}]);
      const dsn = await writerDsn(rig.maria, "idle_follow");
      const token = await createProject(rig.server.base, ADMIN, "idle-follow");
      const env = { COBBLESTONE_TOKEN: token, BOINC_DB_URL: dsn };
      const args = (state: string) => ["--url", rig.server.base, "--project", "idle-follow", "--state", join(rig.work, state)];
      const root = await rig.maria.root();
      // New connections (the bridge's) take the global value: the server closes a session idle for 3 s.
      await root.query("SET GLOBAL wait_timeout = 3");
      try {
        const first = startBridgeCli([...args("idle-a.json"), "--follow", "--poll-every", "8"], env);
        await until("the first run's lock", async () => (await holder(root, "idle_follow", "idle-follow")) !== null);
        // Well past the 3 s (and inside the 8 s between two polls).
        await sleep(7000);
        const second = startBridgeCli(args("idle-b.json"), env);
        expect(await second.exited, second.stderr()).toBe(76);
        expect(second.stderr()).toMatch(/^bridge: another bridge run is working on project 'idle-follow' of database 'idle_follow'/);
        expect(first.child.exitCode, first.stderr()).toBeNull();
        first.child.kill("SIGTERM");
        expect(await first.exited, first.stderr()).toBe(0);
      } finally {
        await root.query(`SET GLOBAL wait_timeout = ${DEFAULT_WAIT_TIMEOUT}`);
        await root.end();
      }
    },
  );

  /** A --follow --write-back run of a database with no results yet, and a validator that adds them. */
  async function following(name: string, project: string) {
    await smallBoincDb(rig.maria, name, Math.floor(Date.now() / 1000), []);
    const dsn = await writerDsn(rig.maria, name);
    const token = await createProject(rig.server.base, ADMIN, project);
    const run = startBridgeCli(
      [
        "--url",
        rig.server.base,
        "--project",
        project,
        "--state",
        join(rig.work, `${project}.json`),
        "--write-back",
        "--switch-time",
        String(Math.floor(Date.now() / 1000) - 60),
        "--follow",
        "--poll-every",
        "1",
      ],
      { COBBLESTONE_TOKEN: token, BOINC_DB_URL: dsn },
    );
    const conn = await rig.maria.root(name);
    const written = async () => Number((await one<{ n: number }>(conn, "SELECT COUNT(*) AS n FROM cobblestone_writeback")).n);
    let inserted = 0;
    /** Validates `n` results, one every 300 ms, and waits until they are written back. */
    const validateSome = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await validateNoCredit(conn, ++inserted);
        await sleep(300);
      }
      await until(`${inserted} results written back`, async () => (await written().catch(() => 0)) === inserted);
    };
    return { run, conn, written, validateSome, inserted: () => inserted };
  }

  it("its connection KILLed: the run takes the lock again and carries on, writing every result once", { timeout: 120_000 }, async () => {
    const { run, conn, validateSome, inserted } = await following("killed_guard", "killed-guard");
    const root = await rig.maria.root();
    await validateSome(5);
    const first = (await holder(root, "killed_guard", "killed-guard"))!;
    await root.query(`KILL CONNECTION ${first}`);
    await until("the lock taken again", async () => ![null, first].includes(await holder(root, "killed_guard", "killed-guard")));
    await validateSome(5);
    expect(run.child.exitCode, run.stderr()).toBeNull();
    run.child.kill("SIGTERM");
    expect(await run.exited, run.stderr()).toBe(0);
    expect(run.stderr()).toMatch(
      new RegExp(`guard: its connection \\(id ${first}\\) was closed \\d+ s after its last answer .*; took the lock again`),
    );
    // Each of the 10 results written once, with the credit on the result and in the bridge's table alike.
    const [rows] = await conn.query(
      "SELECT r.id, r.granted_credit AS g, c.credit FROM result r LEFT JOIN cobblestone_writeback c ON c.result_id = r.id",
    );
    const results = rows as { id: number; g: number; credit: number | null }[];
    expect(results).toHaveLength(inserted());
    expect(results.filter((r) => !(r.g > 0) || r.credit !== r.g)).toEqual([]);
    await Promise.all([conn.end(), root.end()]);
  });

  it(
    "its connection KILLed and the lock taken by another connection meanwhile: the run stops (exit 76), writing nothing more",
    { timeout: 120_000 },
    async () => {
      const { run, conn, written, validateSome, inserted } = await following("stolen_guard", "stolen-guard");
      const root = await rig.maria.root("stolen_guard");
      await validateSome(3);
      const before = await written();
      const first = (await holder(root, "stolen_guard", "stolen-guard"))!;
      const thief = Number((await one<{ id: number }>(root, "SELECT CONNECTION_ID() AS id")).id);
      // One round trip: a result validated, the guard's connection killed, the lock taken by this
      // connection (waiting for the server to free it) before the bridge can open a new one.
      const late = inserted() + 1;
      await root.query(
        "INSERT INTO workunit (id, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults) VALUES (?, 1, ?, 1e13, 1e14, 1)",
        [late, `live${late}`],
      );
      const [answers] = await root.query(`INSERT INTO result SET ?; KILL CONNECTION ${first}; SELECT GET_LOCK(?, 30) AS got`, [
        noCreditResult(late),
        runLockName("stolen_guard", "stolen-guard"),
      ]);
      expect(Number((answers as { got: number }[][])[2]![0]!.got)).toBe(1);
      // A result validated after the lock was lost, too.
      await validateNoCredit(conn, late + 1);
      const exit = await Promise.race([run.exited, sleep(30_000).then(() => "still running")]);
      expect(exit, run.stderr()).toBe(76);
      expect(run.stderr()).toMatch(
        new RegExp(
          `bridge: the one-run guard was lost: its connection \\(id ${first}\\) was closed \\d+ s after its last answer .*, and another bridge run is working on project 'stolen-guard' of database 'stolen_guard' now \\(it holds the database lock '${runLockName("stolen_guard", "stolen-guard")}', connection ${thief}\\)\\. This run stopped at its first check since`,
        ),
      );
      // Nothing written after the loss: the two late results have no credit and no row in the bridge's table.
      expect(await written()).toBe(before);
      const [late2] = await conn.query("SELECT id, granted_credit AS g FROM result WHERE id >= ? ORDER BY id", [late]);
      expect((late2 as { id: number; g: number }[]).map((r) => [r.id, Number(r.g)])).toEqual([
        [late, 0],
        [late + 1, 0],
      ]);
      await Promise.all([conn.end(), root.end()]);
    },
  );
});
