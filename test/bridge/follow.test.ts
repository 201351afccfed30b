/**
 * --follow --write-back for over a minute against a database that this test keeps validating
 * into (a result every half second, as a --no_credit validator leaves it), then SIGTERM: the
 * bridge finishes, exits 0, and every result is written back once (issue 35).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { smallBoincDb } from "./boinc-fixture";
import { validateNoCredit } from "./bridge-cli";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-follow-admin-token";
const ROOT = new URL("../..", import.meta.url).pathname;
const available = suiteNeeds("the bridge's --follow", import.meta.url, "mariadb-server", mariadbAvailable());
const RUN_MS = 65_000;

describe.skipIf(!available)("the bridge's --follow", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-follow-" });

  it(
    "runs over a minute while results keep being validated, then stops cleanly on SIGTERM with every result written back",
    { timeout: 300_000 },
    async () => {
      const start = Math.floor(Date.now() / 1000);
      await smallBoincDb(rig.maria, "follow", start, []);
      const dsn = await writerDsn(rig.maria, "follow");
      const token = await createProject(rig.server.base, ADMIN, "follow");
      const child: ChildProcess = spawn(
        "node",
        [
          "--import",
          "tsx",
          "bridge/cli.ts",
          "--no-progress",
          "--url",
          rig.server.base,
          "--project",
          "follow",
          "--state",
          join(rig.work, "follow.json"),
        ].concat(["--write-back", "--switch-time", String(start - 60), "--follow", "--poll-every", "1"]),
        {
          cwd: ROOT,
          env: {
            ...process.env,
            PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`,
            COBBLESTONE_TOKEN: token,
            BOINC_DB_URL: dsn,
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stderr = "";
      let stdout = "";
      child.stderr!.on("data", (d) => (stderr += d));
      child.stdout!.on("data", (d) => (stdout += d));
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));

      // The validator: a workunit and its valid result every half second, granted nothing (--no_credit).
      const conn = await rig.maria.root("follow");
      let inserted = 0;
      // At least RUN_MS, and on until the bridge logged its minute: the meter's minute starts once
      // the run is up, which under load can be many seconds after the spawn.
      const until = Date.now() + RUN_MS;
      const latest = until + 120_000;
      const minuteLogged = () => /follow: \d+ results posted/.test(stderr);
      while (Date.now() < until || (!minuteLogged() && Date.now() < latest)) {
        await validateNoCredit(conn, ++inserted);
        await new Promise((r) => setTimeout(r, 500));
      }
      const count = async () => Number(((await conn.query("SELECT COUNT(*) AS n FROM cobblestone_writeback"))[0] as { n: number }[])[0]!.n);
      for (let i = 0; i < 300 && (await count()) < inserted; i++) await new Promise((r) => setTimeout(r, 100));
      expect(child.exitCode).toBeNull();
      child.kill("SIGTERM");
      expect(await exited, stderr).toBe(0);

      expect(inserted).toBeGreaterThan(100);
      const [rows] = await conn.query(
        "SELECT r.id, r.granted_credit, w.canonical_credit, c.credit FROM result r JOIN workunit w ON w.id = r.workunitid LEFT JOIN cobblestone_writeback c ON c.result_id = r.id",
      );
      const results = rows as { id: number; granted_credit: number; canonical_credit: number; credit: number | null }[];
      expect(results).toHaveLength(inserted);
      // Every result written back once, with the credit the service granted (a valid result of a 1-result workunit earns > 0).
      expect(
        results.filter((r) => !(r.granted_credit > 0) || r.credit !== r.granted_credit || r.canonical_credit !== r.granted_credit),
      ).toEqual([]);
      const [[host]] = (await conn.query("SELECT total_credit FROM host WHERE id = 7")) as unknown as [{ total_credit: number }[]];
      const sum = results.reduce((s, r) => s + r.granted_credit, 0);
      expect(Math.abs(host!.total_credit - sum) / sum).toBeLessThan(1e-12);
      await conn.end();
      // It logged its minute, and said where it stopped.
      expect(stderr).toMatch(/follow: \d+ results posted, \d+ written back in the last \d+ s; lag behind the validator at most [\d.]+ s/);
      expect(stderr).toMatch(/bridge: SIGTERM: finishing the request in flight/);
      expect(stdout).toMatch(/wrote back \d+ results/);
    },
  );
});
