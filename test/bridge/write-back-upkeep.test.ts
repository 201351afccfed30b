/**
 * The write-back's upkeep (issue 42, items 4 and 5): its table `cobblestone_writeback` loses the
 * rows of results db_purge removed, in small batches, also when the bridge is SIGKILLed during
 * the prune, and nothing is written twice; a workunit's canonical_credit that a validator's
 * late-result pass wrote over is put back, by a --follow run and by the next one-shot run.
 */
import { join } from "node:path";
import type mysql from "mysql2/promise";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { bridgeOptions, runBridge } from "../../bridge/running/run";
import { VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import { smallBoincDb } from "./boinc-fixture";
import { noCreditResult, startBridgeCli } from "./bridge-cli";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-upkeep-admin-token";
const T = 1_700_000_000;
const available = suiteNeeds("the write-back's upkeep", import.meta.url, "mariadb-server", mariadbAvailable());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const one = async <R>(conn: mysql.Connection, sql: string, values: unknown[] = []) => ((await conn.query(sql, values))[0] as R[])[0]!;

/** A result as a --no_credit validator leaves it, on a workunit of its own unless given one. */
async function validated(conn: mysql.Connection, fields: Record<string, unknown> = {}): Promise<number> {
  const wu = (fields.workunitid as number | undefined) ?? null;
  let workunitid = wu;
  if (workunitid === null) {
    const [done] = await conn.query(
      "INSERT INTO workunit (appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults) VALUES (1, UUID(), 1e13, 1e14, 1)",
    );
    workunitid = (done as mysql.ResultSetHeader).insertId;
  }
  const [done] = await conn.query("INSERT INTO result SET ?", [
    { ...noCreditResult(null, workunitid), sent_time: T - 5000, received_time: T - 50, ...fields },
  ]);
  return (done as mysql.ResultSetHeader).insertId;
}

describe.skipIf(!available)("the write-back's upkeep", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-upkeep-" });

  it(
    "prunes the rows of purged results, in batches, through a SIGKILL mid-prune, and writes nothing twice",
    { timeout: 300_000 },
    async () => {
      // Twenty results as --no_credit leaves them (granted 0), reported after the switch point T - 100.
      await smallBoincDb(
        rig.maria,
        "prune",
        T,
        Array.from({ length: 20 }, () => ({ granted_credit: 0, received_time: T - 50 })),
      );
      const writer = await writerDsn(rig.maria, "prune");
      const token = await createProject(rig.server.base, ADMIN, "prune");
      const stateFile = join(rig.work, "prune.json");
      const once = () =>
        runBridge(
          bridgeOptions(
            { db: writer, url: rig.server.base, project: "prune", token, stateFile },
            { writeBack: true, switchTime: T - 100, log: () => undefined },
          ),
        );
      await once();
      const conn = await rig.maria.root("prune");
      const count = async () => Number((await one<{ n: number }>(conn, "SELECT COUNT(*) AS n FROM cobblestone_writeback")).n);
      expect(await count()).toBe(20);
      const hostBefore = Number((await one<{ t: number }>(conn, "SELECT total_credit AS t FROM host WHERE id = 7")).t);

      // db_purge removes results 1-5 (the oldest: below every result left) and 11-13 (among them).
      await conn.query(
        "DELETE FROM result WHERE id IN (1, 2, 3, 4, 5, 11, 12, 13); DELETE FROM workunit WHERE id IN (1, 2, 3, 4, 5, 11, 12, 13)",
      );
      // And a long history of purged results above the oldest one left: 150,000 rows, ids 100,000 on.
      await conn.query(
        `INSERT INTO cobblestone_writeback (result_id, workunit_id, credit, grant_time)
         SELECT 100000 + seq, 100000 + seq, 1.5, ${T} FROM seq_0_to_149999`,
      );
      // New results come after them (BOINC's ids never come back).
      await conn.query("ALTER TABLE result AUTO_INCREMENT = 1000000; ALTER TABLE workunit AUTO_INCREMENT = 1000000");
      expect(await count()).toBe(150_020);

      // A --follow run prunes 5 batches of 1,000 rows after each poll; it is killed in the middle of it.
      const args = [
        "--url",
        rig.server.base,
        "--project",
        "prune",
        "--state",
        stateFile,
        "--write-back",
        "--follow",
        "--poll-every",
        "0.1",
      ];
      const env = { COBBLESTONE_TOKEN: token, BOINC_DB_URL: writer };
      const first = startBridgeCli(args, env);
      let n = await count();
      for (let i = 0; i < 600 && n > 100_000; i++, n = await count()) await sleep(50);
      expect(n).toBeLessThan(150_020);
      first.child.kill("SIGKILL");
      await first.exited;
      const atKill = await count();
      expect(atKill).toBeGreaterThan(12);

      // Results validated after the kill, then a new run finishes the prune and writes them.
      const fresh = [await validated(conn), await validated(conn), await validated(conn)];
      const second = startBridgeCli(args, env);
      const live = async () =>
        Number(
          (
            await one<{ n: number }>(
              conn,
              "SELECT COUNT(*) AS n FROM result r JOIN cobblestone_writeback c ON c.result_id = r.id WHERE r.granted_credit > 0",
            )
          ).n,
        );
      for (let i = 0; i < 1200 && ((await count()) > 15 || (await live()) < 15); i++) await sleep(100);
      second.child.kill("SIGTERM");
      expect(await second.exited, second.stderr()).toBe(0);
      expect(second.stdout()).toMatch(/rows of purged results pruned from its table/);

      // What is left: exactly the rows of the results still in the table, each with the result's credit.
      const [rows] = await conn.query(
        "SELECT c.result_id AS id, c.credit, r.granted_credit AS granted FROM cobblestone_writeback c LEFT JOIN result r ON r.id = c.result_id ORDER BY c.result_id",
      );
      const kept = rows as { id: number; credit: number; granted: number | null }[];
      expect(kept.map((r) => Number(r.id))).toEqual([6, 7, 8, 9, 10, 14, 15, 16, 17, 18, 19, 20, ...fresh]);
      expect(kept.filter((r) => r.granted !== r.credit || !(r.credit > 0))).toEqual([]);
      // The host got each credit once: the twenty before the purge, and the three new ones.
      const [freshRows] = await conn.query("SELECT SUM(granted_credit) AS s FROM result WHERE id IN (?)", [fresh]);
      const freshSum = Number((freshRows as { s: number }[])[0]!.s);
      const hostAfter = Number((await one<{ t: number }>(conn, "SELECT total_credit AS t FROM host WHERE id = 7")).t);
      expect(Math.abs(hostAfter - (hostBefore + freshSum)) / hostAfter).toBeLessThan(1e-12);
      await conn.end();
    },
  );

  it(
    "puts back a canonical_credit that a validator's late-result pass wrote over, live and on the next run",
    { timeout: 300_000 },
    async () => {
      await smallBoincDb(rig.maria, "repair", T, [
        { granted_credit: 0, received_time: T - 50 },
        { granted_credit: 0, received_time: T - 50 },
      ]);
      const writer = await writerDsn(rig.maria, "repair");
      const token = await createProject(rig.server.base, ADMIN, "repair");
      const stateFile = join(rig.work, "repair.json");
      const conn = await rig.maria.root("repair");
      const canonical = async (wu: number) =>
        Number((await one<{ c: number }>(conn, "SELECT canonical_credit AS c FROM workunit WHERE id = ?", [wu])).c);
      const bridge = startBridgeCli(
        [
          "--url",
          rig.server.base,
          "--project",
          "repair",
          "--state",
          stateFile,
          "--write-back",
          "--switch-time",
          String(T - 100),
          "--follow",
          "--poll-every",
          "1",
        ],
        { COBBLESTONE_TOKEN: token, BOINC_DB_URL: writer },
      );
      for (let i = 0; i < 600 && (await canonical(1)) === 0; i++) await sleep(100);
      const credit = await canonical(1);
      expect(credit).toBeGreaterThan(0);
      expect(Number((await one<{ g: number }>(conn, "SELECT granted_credit AS g FROM result WHERE id = 1")).g)).toBe(credit);

      // The validator handled a late result of workunit 1 that it found invalid: it had read the
      // workunit before the bridge's write, and writes its canonical_credit back as read (0).
      await validated(conn, { workunitid: 1, validate_state: VALIDATE_STATE.invalid });
      await conn.query("UPDATE workunit SET canonical_credit = 0 WHERE id = 1");
      for (let i = 0; i < 600 && (await canonical(1)) === 0; i++) await sleep(100);
      expect(await canonical(1)).toBe(credit);
      bridge.child.kill("SIGTERM");
      expect(await bridge.exited, bridge.stderr()).toBe(0);
      expect(bridge.stderr()).toMatch(/put back the canonical_credit of 1 workunit that a validator's late-result pass had written over/);

      // With the bridge stopped, the same happens to workunit 2: the next run (from cron) puts it back.
      const credit2 = await canonical(2);
      expect(credit2).toBeGreaterThan(0);
      await conn.query("UPDATE workunit SET canonical_credit = 0 WHERE id = 2");
      const report = await runBridge(
        bridgeOptions({ db: writer, url: rig.server.base, project: "repair", token, stateFile }, { writeBack: true, log: () => undefined }),
      );
      expect(report.write_back?.repaired).toBe(1);
      expect(await canonical(2)).toBe(credit2);
      expect(await canonical(1)).toBe(credit);
      await conn.end();
    },
  );
});
