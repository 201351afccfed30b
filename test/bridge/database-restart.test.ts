/**
 * A --follow --write-back bridge across a restart of MariaDB (found by the soak, issue 42 item
 * 8): the reconnection that follows the first failed poll runs while the database is still
 * down, so the write-back's connection must be opened again before the next poll, not found
 * closed by the next write ("went away during a write-back", and one more back-off). Every
 * result validated before and after the restart is written once.
 */
import { join } from "node:path";
import type mysql from "mysql2/promise";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { smallBoincDb } from "./boinc-fixture";
import { startBridgeCli, validateNoCredit } from "./bridge-cli";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-database-restart-admin-token";
const available = suiteNeeds("the bridge across a database restart", import.meta.url, "mariadb-server", mariadbAvailable());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!available)("the bridge across a database restart", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-db-restart-" });

  it("opens the write-back's connection again before its next write, and writes every result once", { timeout: 300_000 }, async () => {
    const start = Math.floor(Date.now() / 1000);
    await smallBoincDb(rig.maria, "restarted", start, []);
    const dsn = await writerDsn(rig.maria, "restarted");
    const token = await createProject(rig.server.base, ADMIN, "restarted");
    const bridge = startBridgeCli(
      ["--url", rig.server.base, "--project", "restarted", "--state", join(rig.work, "restarted.json")].concat([
        "--write-back",
        "--switch-time",
        String(start - 60),
        "--follow",
        "--poll-every",
        "1",
      ]),
      { COBBLESTONE_TOKEN: token, BOINC_DB_URL: dsn },
    );
    // 0 until the bridge has created its table.
    const written = async (conn: mysql.Connection) =>
      conn.query("SELECT COUNT(*) AS n FROM cobblestone_writeback").then(
        ([rows]) => Number((rows as { n: number }[])[0]!.n),
        () => 0,
      );
    const waitWritten = async (n: number) => {
      const conn = await rig.maria.root("restarted");
      for (let i = 0; i < 600 && (await written(conn)) < n && bridge.child.exitCode === null; i++) await sleep(100);
      const got = await written(conn);
      await conn.end();
      return got;
    };

    let conn = await rig.maria.root("restarted");
    for (let id = 1; id <= 3; id++) await validateNoCredit(conn, id);
    await conn.end();
    expect(await waitWritten(3), bridge.stderr()).toBe(3);

    // Down for 3 s: the bridge's next poll fails, and so does the reconnection right after it.
    await rig.maria.restart(3000);
    conn = await rig.maria.root("restarted");
    for (let id = 4; id <= 6; id++) await validateNoCredit(conn, id);
    await conn.end();
    expect(await waitWritten(6), bridge.stderr()).toBe(6);
    bridge.child.kill("SIGTERM");
    expect(await bridge.exited, bridge.stderr()).toBe(0);

    // It backed off while the database was down, and never found the write-back's connection closed.
    expect(bridge.stderr()).toMatch(/follow: .*; trying again in 5 s/);
    expect(bridge.stderr()).not.toMatch(/went away during a write-back/);
    conn = await rig.maria.root("restarted");
    const [rows] = await conn.query(
      "SELECT r.id, r.granted_credit AS granted, c.credit FROM result r LEFT JOIN cobblestone_writeback c ON c.result_id = r.id ORDER BY r.id",
    );
    const results = rows as { id: number; granted: number; credit: number | null }[];
    expect(results.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(results.filter((r) => !(r.granted > 0) || r.credit !== r.granted)).toEqual([]);
    const [[host]] = (await conn.query("SELECT total_credit FROM host WHERE id = 7")) as unknown as [{ total_credit: number }[]];
    const sum = results.reduce((s, r) => s + r.granted, 0);
    expect(Math.abs(host!.total_credit - sum) / sum).toBeLessThan(1e-12);
    await conn.end();
  });
});
