/**
 * --follow against MariaDB and the service (issue 48, item 7): BOINC's transitioner and file
 * deleter move a result's mod_time after its validation, so the row comes back after the cursor.
 * The bridge does not post it again when nothing the service gets changed, valid results and
 * error outcomes alike; a row whose posted content changed is posted again.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type mysql from "mysql2/promise";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import { bridgeOptions, runBridge } from "../../bridge/running/run";
import { smallBoincDb } from "./boinc-fixture";
import { noCreditResult, validateNoCredit } from "./bridge-cli";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-reposts-admin-token";
const available = suiteNeeds("--follow's re-posts", import.meta.url, "mariadb-server", mariadbAvailable());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const one = async <R>(conn: mysql.Connection, sql: string, values: unknown[] = []) => ((await conn.query(sql, values))[0] as R[])[0]!;

describe.skipIf(!available)("--follow's re-posts", () => {
  const rig = bridgeRig(ADMIN, { standIn: true, work: "cobblestone-reposts-" });

  it(
    "posts a result whose mod_time alone moved once, valid or an error, also after a restart (valid ones), and posts again one whose content changed",
    { timeout: 300_000 },
    async () => {
      const start = Math.floor(Date.now() / 1000);
      await smallBoincDb(rig.maria, "reposts", start, []);
      const writer = await writerDsn(rig.maria, "reposts");
      const token = await createProject(rig.server.base, ADMIN, "reposts");
      const stateFile = join(rig.work, "reposts.json");
      const conn = await rig.maria.root("reposts");
      // Two valid results, and a client error of its own workunit.
      await validateNoCredit(conn, 1);
      await validateNoCredit(conn, 2);
      // Validated in one second, as a validator's two results usually are: two seconds apart, the bridge's
      // first poll may take 1 before 2 has settled, and post them in two requests.
      await conn.query("SELECT mod_time INTO @t FROM result WHERE id = 1; UPDATE result SET mod_time = @t WHERE id = 2");
      await conn.query(
        "INSERT INTO workunit (id, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults) VALUES (3, 1, 'e3', 1e13, 1e14, 1)",
      );
      await conn.query("INSERT INTO result SET ?", [
        { ...noCreditResult(3), outcome: OUTCOME.clientError, validate_state: VALIDATE_STATE.init },
      ]);

      const posted = rig.standIn.passResults;
      const follow = (signal?: AbortSignal) => {
        const run = runBridge(
          bridgeOptions(
            { db: writer, url: rig.standIn.base, project: "reposts", token, stateFile },
            { writeBack: true, switchTime: start - 60, follow: { pollSeconds: 0.5 }, signal, log: () => undefined },
          ),
        );
        run.catch(() => undefined);
        return run;
      };
      const stop = new AbortController();
      const first = follow(stop.signal);
      const cursor = async () =>
        (JSON.parse(await readFile(stateFile, "utf8").catch(() => "{}")) as { cursor?: { mod_time: number } }).cursor;
      /** Waits until the bridge saved a cursor at or past `modTime` (all before it answered and written). */
      const through = async (modTime: number) => {
        for (let i = 0; i < 600 && ((await cursor())?.mod_time ?? 0) < modTime; i++) await sleep(100);
        expect((await cursor())?.mod_time).toBeGreaterThanOrEqual(modTime);
      };
      const modTime = async (id: number) =>
        Number((await one<{ t: number }>(conn, "SELECT UNIX_TIMESTAMP(mod_time) AS t FROM result WHERE id = ?", [id])).t);
      const errorReports = () => rig.standIn.seen.filter((l) => /^POST .*\/errors$/.test(l)).length;

      await through(await modTime(3));
      expect(await one<{ n: number }>(conn, "SELECT COUNT(*) AS n FROM cobblestone_writeback")).toEqual({ n: 2 });
      expect(posted).toEqual([[1, 2]]);
      expect(errorReports()).toBe(1);

      // The transitioner's and the file deleter's touch: the rows come back after the cursor, unchanged.
      await sleep(1100);
      await conn.query("UPDATE result SET mod_time = NOW() WHERE id IN (1, 2, 3)");
      await through(await modTime(1));
      expect(posted).toEqual([[1, 2]]);
      expect(errorReports()).toBe(1);

      // Workunit 2's target_nresults changed (in the pass body, not in the service's fingerprint), its results touched: 2 posted again, replayed.
      await sleep(1100);
      await conn.query("UPDATE workunit SET target_nresults = 2 WHERE id = 2");
      await conn.query("UPDATE result SET mod_time = NOW() WHERE id IN (1, 2)");
      await through(await modTime(2));
      expect(posted).toEqual([[1, 2], [2]]);

      stop.abort();
      // 1 and 2, then 2 again (replayed); the error once; read again and not posted: 1, 2, 3, then 1.
      expect(await first).toMatchObject({ results: 3, replayed: 1, error_outcomes: 1, unchanged: 4, interrupted: true });

      // A new process (systemd's restart) remembers nothing: the results touched again are found in the
      // write-back's table; the error outcome, which has no row there, is posted again (replayed).
      await sleep(1100);
      await conn.query("UPDATE result SET mod_time = NOW() WHERE id IN (1, 2, 3)");
      const second = follow();
      await through(await modTime(1));
      expect(posted).toEqual([[1, 2], [2]]);
      expect(errorReports()).toBe(2);

      // Result 1 found invalid after it was posted valid: posted again, and the service refuses the other content (409).
      await sleep(1100);
      await conn.query("UPDATE result SET validate_state = ? WHERE id = 1", [VALIDATE_STATE.invalid]);
      await expect(second).rejects.toThrow(/result 1 already has a final outcome/);
      expect(posted).toEqual([[1, 2], [2], [1]]);
      await conn.end();
    },
  );
});
