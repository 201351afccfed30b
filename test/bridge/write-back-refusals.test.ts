/**
 * Where --write-back would be unsafe it refuses with the reason, and writes nothing (issue 35):
 * a validator still granting after the switch point, a read-only account, a read-only server
 * (a replica); and the switch point itself (an app on credit mode fixed is no longer refused):
 * results BOINC granted before it keep their credit. And the faults: a lock wait timeout is
 * retried, the database going away mid-transaction writes nothing, a missing host is named.
 */
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { BridgeError } from "../../bridge/shared/errors";
import { type BridgeOptions, bridgeOptions, runBridge } from "../../bridge/running/run";
import { summary } from "../../bridge/running/summary";
import { send } from "../support/send";
import { smallBoincDb } from "./boinc-fixture";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject, createProjectTokens } from "./service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-writeback-refusals-admin-token";
const T = 1_700_000_000;
const available = suiteNeeds("--write-back's refusals", import.meta.url, "mariadb-server", mariadbAvailable());

describe.skipIf(!available)("--write-back's refusals", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-wb-refusals-" });

  const options = (dsn: string, slug: string, token: string, extra: Partial<BridgeOptions> = {}): BridgeOptions =>
    bridgeOptions(
      { db: dsn, url: rig.server.base, project: slug, token, stateFile: join(rig.work, `${slug}.state.json`) },
      { log: () => undefined, writeBack: true, ...extra },
    );

  /** Three results granted 1 credit each by BOINC's validator (at T, T+1, T+2), host 7 of user 3 in team 5. */
  async function granted(name: string) {
    const dsn = await smallBoincDb(rig.maria, name, T, [{}, {}, {}]);
    return { reader: dsn, writer: await writerDsn(rig.maria, name) };
  }

  const credit = async (name: string) => {
    const conn = await rig.maria.root(name);
    const [results] = await conn.query("SELECT SUM(granted_credit) AS s FROM result");
    const [hosts] = await conn.query("SELECT total_credit AS t FROM host WHERE id = 7");
    await conn.end();
    return { results: Number((results as { s: number }[])[0]!.s), host: Number((hosts as { t: number }[])[0]!.t) };
  };

  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => new Error("no refusal"),
      (e: unknown) => e,
    );

  it("refuses when results after the switch point already have BOINC's credit (a validator still grants); writes nothing", async () => {
    const db = await granted("still_granting");
    const token = await createProject(rig.server.base, ADMIN, "still-granting");
    const e = (await refusal(runBridge(options(db.writer, "still-granting", token, { switchTime: T - 100 })))) as Error;
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.message).toMatch(
      /results validated after the switch point \(2023-11-14T22:11:40\.000Z\) already have credit the bridge did not write \(result 1, 2, 3\): a validator still grants/,
    );
    // As BOINC left it: 1 credit per result, nothing added to the host.
    expect(await credit("still_granting")).toEqual({ results: 3, host: 0 });
  });

  it("checks each scan of the result table before posting its rows: a later scan's granted result stops the run there", async () => {
    // Results 1 to 3 as a --no_credit validator leaves them, result 4 granted by a validator that still grants; two keys a scan.
    await smallBoincDb(rig.maria, "later_scan", T, [{ granted_credit: 0 }, { granted_credit: 0 }, { granted_credit: 0 }, {}]);
    const writer = await writerDsn(rig.maria, "later_scan");
    const token = await createProject(rig.server.base, ADMIN, "later-scan");
    const e = (await refusal(
      runBridge(options(writer, "later-scan", token, { switchTime: T - 100, keysPerScan: 2, passesPerRequest: 1 })),
    )) as Error;
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.message).toMatch(/already have credit the bridge did not write \(result 4\): a validator still grants/);
    const conn = await rig.maria.root("later_scan");
    const [rows] = await conn.query("SELECT id, granted_credit AS g FROM result ORDER BY id");
    const [hosts] = await conn.query("SELECT total_credit AS t FROM host WHERE id = 7");
    await conn.end();
    const granted = (rows as { id: number; g: number }[]).map((r) => Number(r.g));
    // Nothing of the refused scan (results 3 and 4) is written, and result 4 keeps BOINC's 1.
    // The first scan's results are written back only if their request left before the refusal
    // (the next scan is read ahead, so here it is refused first); whatever was written is on
    // the host too, once.
    expect(granted.slice(2)).toEqual([0, 1]);
    expect(Number((hosts as { t: number }[])[0]!.t)).toBeCloseTo(granted[0]! + granted[1]!, 9);
  });

  it("leaves BOINC's credit alone on results validated before the switch point", async () => {
    const db = await granted("before_switch");
    const token = await createProject(rig.server.base, ADMIN, "before-switch");
    const report = await runBridge(options(db.writer, "before-switch", token, { switchTime: T + 1000 }));
    expect(report.results).toBe(3);
    expect(report.write_back).toMatchObject({ written: 0, boinc_granted: 3 });
    // The summary line counts them, as docs/bridge.md says.
    expect(summary(report, false)).toContain(
      "; wrote back 0 results (0 written before, 0 skipped, 3 validated before the switch with BOINC's credit, ",
    );
    expect(await credit("before_switch")).toEqual({ results: 3, host: 0 });
  });

  it("the first write-back run needs --switch-time; later runs keep the stored one", async () => {
    const db = await granted("no_switch");
    const token = await createProject(rig.server.base, ADMIN, "no-switch");
    const e = (await refusal(runBridge(options(db.writer, "no-switch", token)))) as Error;
    expect(e.message).toMatch(/^the first --write-back run of 'no-switch' needs --switch-time TIME/);
    await runBridge(options(db.writer, "no-switch", token, { switchTime: T + 1000 }));
    const other = (await refusal(runBridge(options(db.writer, "no-switch", token, { switchTime: T })))) as Error;
    expect(other.message).toMatch(
      /^--switch-time 1700000000 differs from the switch point this database holds for 'no-switch' \(1700001000/,
    );
  });

  it("refuses a read-only account, naming every table it may not write", async () => {
    const db = await granted("read_only_account");
    const token = await createProject(rig.server.base, ADMIN, "ro-account");
    const e = (await refusal(runBridge(options(db.reader, "ro-account", token, { switchTime: 0, creditByApp: true })))) as Error;
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.message).toMatch(/^--write-back: this database account may not write what the write-back writes \(a read-only account\?\)/);
    for (const table of ["result", "workunit", "host", "user", "team", "credit_user", "credit_team"])
      expect(e.message).toContain(`\n  ${table}: `);
    expect(await credit("read_only_account")).toEqual({ results: 3, host: 0 });
  });

  /** Three results as a --no_credit validator leaves them (granted 0), host 7 of user 3 in team 5, or host 99 that does not exist. */
  async function ungranted(name: string, rows: Record<string, unknown>[] = [{}, {}, {}]) {
    await smallBoincDb(
      rig.maria,
      name,
      T,
      rows.map((r) => ({ granted_credit: 0, ...r })),
    );
    return writerDsn(rig.maria, name);
  }

  it("no longer refuses an app on credit mode fixed: writes its workunits' canonical_credit (issue 50)", async () => {
    const dsn = await ungranted("fixed_mode");
    const root = await rig.maria.root("fixed_mode");
    // create_work --credit 3.5, as a --credit_from_wu --no_credit validator leaves it in the workunit.
    await root.query("UPDATE workunit SET canonical_credit = 3.5, canonical_resultid = id, mod_time = mod_time");
    await root.end();
    const { manage, ingest: token } = await createProjectTokens(rig.server.base, ADMIN, "fixed-mode");
    await send(rig.server.base, "PUT", "/v1/projects/fixed-mode/apps/alpha", manage, { credit_mode: "fixed" });
    await runBridge(options(dsn, "fixed-mode", token, { switchTime: 0 }));
    expect(await credit("fixed_mode")).toEqual({ results: 3 * 3.5, host: 3 * 3.5 });
  });

  it("retries a transaction that met a lock wait timeout, and writes once", async () => {
    const dsn = await ungranted("lock_wait");
    const token = await createProject(rig.server.base, ADMIN, "lock-wait");
    const root = await rig.maria.root("lock_wait");
    await root.query("SET GLOBAL innodb_lock_wait_timeout = 1");
    try {
      // Another daemon holds host 7 until the bridge's write has met the 1 s lock wait timeout
      // (the bridge says it retries), then commits: whatever the machine's load (a fixed 2.5 s
      // was over before a loaded bridge got to its write).
      await root.query("START TRANSACTION");
      await root.query("SELECT * FROM host WHERE id = 7 FOR UPDATE");
      let retrying = () => {};
      const held = new Promise<void>((r) => (retrying = r)).then(() => root.query("COMMIT"));
      const log = (line: string) => line.includes("retrying the transaction") && retrying();
      const report = await runBridge(options(dsn, "lock-wait", token, { switchTime: 0, log }));
      await held;
      expect(report.write_back!.retries).toBeGreaterThan(0);
      expect(report.write_back).toMatchObject({ written: 3, already: 0 });
      const [[row]] = (await root.query("SELECT SUM(granted_credit) AS s FROM result")) as unknown as [{ s: number }[]];
      const [[host]] = (await root.query("SELECT total_credit AS t FROM host WHERE id = 7")) as unknown as [{ t: number }[]];
      expect(row!.s).toBeGreaterThan(0);
      expect(Math.abs(host!.t - row!.s) / row!.s).toBeLessThan(1e-12);
    } finally {
      await root.query("SET GLOBAL innodb_lock_wait_timeout = 50");
      await root.end();
    }
  });

  it("the database going away mid-transaction: a clear message, nothing of the request written; the next run writes it", async () => {
    const dsn = await ungranted("gone");
    const token = await createProject(rig.server.base, ADMIN, "gone");
    const root = await rig.maria.root("gone");
    await root.query("START TRANSACTION");
    await root.query("SELECT * FROM host WHERE id = 7 FOR UPDATE");
    const run = refusal(runBridge(options(dsn, "gone", token, { switchTime: 0 })));
    // The write-back's connection waits on host 7, inside its transaction: cut it there.
    let killed = false;
    for (let i = 0; i < 200 && !killed; i++) {
      const [rows] = await root.query(
        "SELECT id FROM information_schema.PROCESSLIST WHERE USER = 'writer' AND INFO LIKE '%FROM `host`%FOR UPDATE%'",
      );
      for (const { id } of rows as { id: number }[]) {
        await root.query(`KILL CONNECTION ${id}`);
        killed = true;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(killed).toBe(true);
    const e = (await run) as Error;
    await root.query("COMMIT");
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.message).toMatch(/went away during a write-back .*nothing of this request is written; run the same command again/);
    const sums = async () => {
      const [[r]] = (await root.query(
        "SELECT SUM(granted_credit) AS s, (SELECT COUNT(*) FROM cobblestone_writeback) AS n FROM result",
      )) as unknown as [{ s: number; n: number }[]];
      return { s: Number(r!.s), n: Number(r!.n) };
    };
    expect(await sums()).toEqual({ s: 0, n: 0 });
    const report = await runBridge(options(dsn, "gone", token));
    expect(report.write_back).toMatchObject({ written: 3 });
    expect((await sums()).n).toBe(3);
    await root.end();
  });

  it("a result whose host row is missing: its credit is written to the result and workunit, the host named in a warning", async () => {
    const dsn = await ungranted("missing_host", [{}, { hostid: 99 }]);
    const token = await createProject(rig.server.base, ADMIN, "missing-host");
    const lines: string[] = [];
    const report = await runBridge(options(dsn, "missing-host", token, { switchTime: 0, log: (l) => lines.push(l) }));
    expect(report.write_back).toMatchObject({ written: 2, missing_holders: 1 });
    expect(lines).toContainEqual(
      expect.stringMatching(/^write-back: host 99 \(result 2\) is not in the database: its [\d.]+ credit is written to the result only$/),
    );
    const root = await rig.maria.root("missing_host");
    const [rows] = await root.query(
      "SELECT r.id, r.granted_credit, w.canonical_credit FROM result r JOIN workunit w ON w.id = r.workunitid ORDER BY r.id",
    );
    const [[host]] = (await root.query("SELECT total_credit AS t FROM host WHERE id = 7")) as unknown as [{ t: number }[]];
    await root.end();
    const results = rows as { id: number; granted_credit: number; canonical_credit: number }[];
    expect(results.every((r) => r.granted_credit > 0 && r.canonical_credit === r.granted_credit)).toBe(true);
    // Host 7 has result 1's credit only.
    expect(Math.abs(host!.t - results[0]!.granted_credit) / host!.t).toBeLessThan(1e-12);
  });

  it("refuses a read-only server (a replica)", async () => {
    const db = await granted("replica");
    const token = await createProject(rig.server.base, ADMIN, "replica");
    const root = await rig.maria.root();
    await root.query("SET GLOBAL read_only = ON");
    try {
      const e = (await refusal(runBridge(options(db.writer, "replica", token, { switchTime: 0 })))) as Error;
      expect(e.message).toMatch(/^--write-back: this database server is read-only \(read_only is ON: a replica\?\)/);
    } finally {
      await root.query("SET GLOBAL read_only = OFF");
      await root.end();
    }
  });
});
