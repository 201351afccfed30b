/**
 * Where a run starts, against MariaDB with BOINC's schema and the real service (issue 48, items
 * 3 to 5): a --write-back run goes back to the switch point, or to where its own writing stopped,
 * when a run without --write-back moved the cursor past it, and pays what that run posted; a
 * cursor ahead of the database's clock is refused, and --rewind goes back; a switch point later
 * than the database's clock, or a time without a zone, is refused. BOINC's database is read after
 * each.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { BridgeError } from "../../bridge/shared/errors";
import { type BridgeOptions, bridgeOptions, runBridge } from "../../bridge/running/run";
import { normalizeServiceUrl } from "../../bridge/service/service-url";
import { startBridgeCli } from "./bridge-cli";
import { smallBoincDb } from "./boinc-fixture";
import { sqlTime } from "./load-trace";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-run-start-admin-token";
const T = 1_700_000_000;
/** The switch point: before the results' validation (T…) and their reports (T - 100 in smallBoincDb). */
const SWITCH = T - 200;
const available = suiteNeeds("where a bridge run starts", import.meta.url, "mariadb-server", mariadbAvailable());

describe.skipIf(!available)("where a bridge run starts", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-run-start-" });

  const stateFile = (slug: string) => join(rig.work, `${slug}.state.json`);
  const options = (dsn: string, slug: string, token: string, extra: Partial<BridgeOptions> = {}): BridgeOptions =>
    bridgeOptions({ db: dsn, url: rig.server.base, project: slug, token, stateFile: stateFile(slug) }, { log: () => undefined, ...extra });
  const writing = (extra: Partial<BridgeOptions> = {}): Partial<BridgeOptions> => ({ writeBack: true, switchTime: SWITCH, ...extra });

  /** Three results as a --no_credit validator leaves them (granted 0), validated at T, T+1, T+2; a project. */
  async function unpaid(name: string) {
    const reader = await smallBoincDb(rig.maria, name, T, [{ granted_credit: 0 }, { granted_credit: 0 }, { granted_credit: 0 }]);
    const slug = name.replace(/_/g, "-");
    return { reader, writer: await writerDsn(rig.maria, name), slug, token: await createProject(rig.server.base, ADMIN, slug) };
  }

  /** Result `id` on its own workunit `id`, validated (granted 0) at `modTime`, as smallBoincDb's. */
  async function validatedLater(name: string, id: number, modTime: number) {
    const conn = await rig.maria.root(name);
    await conn.query(
      "INSERT INTO workunit (id, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults) VALUES (?, 1, ?, 1e13, 1e14, 1)",
      [id, `wu${id}`],
    );
    await conn.query(
      `INSERT INTO result SET id = ?, workunitid = ?, outcome = 1, hostid = 7, userid = 3, teamid = 5, sent_time = ?, received_time = ?,
         cpu_time = 900, validate_state = 1, granted_credit = 0, elapsed_time = 1000, flops_estimate = 1e10, app_version_id = 1, mod_time = ?`,
      [id, id, T - 5000, T - 100, sqlTime(modTime)],
    );
    await conn.end();
  }

  /** Each result's granted_credit by id, and the host's total. */
  async function paid(name: string) {
    const conn = await rig.maria.root(name);
    const [results] = await conn.query("SELECT id, granted_credit AS g FROM result ORDER BY id");
    const [hosts] = await conn.query("SELECT total_credit AS t FROM host WHERE id = 7");
    await conn.end();
    return {
      results: (results as { id: number; g: number }[]).map((r) => Number(r.g)),
      host: Number((hosts as { t: number }[])[0]!.t),
    };
  }
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const dbClock = async () => {
    const conn = await rig.maria.root();
    const [rows] = await conn.query("SELECT UNIX_TIMESTAMP() AS now");
    await conn.end();
    return Math.floor(Number((rows as { now: number }[])[0]!.now));
  };
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => new Error("no refusal"),
      (e: unknown) => e as Error,
    );

  it("a read-only run after the switch moved the cursor past T: the first --write-back run goes back to T and pays what it posted", async () => {
    const db = await unpaid("past_switch");
    // The cron job's last read-only run, still in flight after bin/start: it posts the three, writes nothing.
    const readOnly = await runBridge(options(db.reader, db.slug, db.token));
    expect(readOnly.results).toBe(3);
    expect((await paid("past_switch")).results).toEqual([0, 0, 0]);
    const lines: string[] = [];
    const report = await runBridge(options(db.writer, db.slug, db.token, writing({ log: (l) => lines.push(l) })));
    expect(lines.join("\n")).toMatch(
      /--write-back: the cursor \(1700000002 .*, result 3\) is past the switch point 1699999800 .* going back to 1699999800 .* to post them again and write them back/,
    );
    // Posted again (the service has them: replayed) and written, each once.
    expect(report).toMatchObject({ results: 3, replayed: 3 });
    expect(report.write_back).toMatchObject({ written: 3, already: 0 });
    const after = await paid("past_switch");
    expect(after.results.every((c) => c > 0)).toBe(true);
    expect(Math.abs(after.host - sum(after.results)) / after.host).toBeLessThan(1e-12);
    // The state file now says how far the write-back wrote.
    const state = JSON.parse(await readFile(stateFile(db.slug), "utf8")) as { cursor: unknown; write_back_cursor: unknown };
    expect(state.write_back_cursor).toEqual(state.cursor);
  });

  it("a read-only run between two --write-back runs: the second goes back to where the first's writing stopped", async () => {
    const db = await unpaid("between_runs");
    await runBridge(options(db.writer, db.slug, db.token, writing()));
    const first = await paid("between_runs");
    expect(first.results.every((c) => c > 0)).toBe(true);
    await validatedLater("between_runs", 4, T + 10);
    await validatedLater("between_runs", 5, T + 11);
    const lines: string[] = [];
    // A read-only run on the write-back's state file: it says it does not write.
    await runBridge(options(db.reader, db.slug, db.token, { log: (l) => lines.push(l) }));
    expect(lines.join("\n")).toMatch(/this run has no --write-back: it posts without writing/);
    expect((await paid("between_runs")).results.slice(3)).toEqual([0, 0]);
    const report = await runBridge(options(db.writer, db.slug, db.token, writing({ log: (l) => lines.push(l) })));
    expect(lines.join("\n")).toMatch(
      /a run without --write-back moved the cursor to 1700000011 .*, past where the write-back's writing stopped \(1700000002 .*, result 3\)/,
    );
    expect(report.write_back).toMatchObject({ written: 2, already: 0 });
    const after = await paid("between_runs");
    expect(after.results.slice(0, 3)).toEqual(first.results);
    expect(after.results.every((c) => c > 0)).toBe(true);
    expect(Math.abs(after.host - sum(after.results)) / after.host).toBeLessThan(1e-12);
  });

  it("refuses a cursor ahead of the database's clock, posting nothing; --rewind goes back and pays", async () => {
    const db = await unpaid("clock_ahead");
    const ahead = { mod_time: (await dbClock()) + 3600, id: 9 };
    // As a run left it while the database's clock ran an hour ahead.
    await writeFile(
      stateFile(db.slug),
      JSON.stringify({
        version: 1,
        url: normalizeServiceUrl(rig.server.base),
        project: db.slug,
        cursor: ahead,
        last_event_time: ahead.mod_time,
        last_rescale_mark: null,
        write_back_cursor: ahead,
      }),
    );
    const e = await refusal(runBridge(options(db.writer, db.slug, db.token, writing())));
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.message).toMatch(/is ahead of the database's clock .* Nothing was posted\. Run once with --rewind TIME/);
    expect((await paid("clock_ahead")).results).toEqual([0, 0, 0]);
    const lines: string[] = [];
    const report = await runBridge(options(db.writer, db.slug, db.token, writing({ rewind: T - 1, log: (l) => lines.push(l) })));
    expect(lines.join("\n")).toMatch(/--rewind: the cursor goes back from .* to 1699999999 /);
    expect(report.write_back).toMatchObject({ written: 3 });
    expect((await paid("clock_ahead")).results.every((c) => c > 0)).toBe(true);
  });

  it("refuses a switch point later than the database's clock, storing and writing nothing", async () => {
    const db = await unpaid("future_switch");
    const e = await refusal(runBridge(options(db.writer, db.slug, db.token, writing({ switchTime: (await dbClock()) + 86_400 }))));
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.message).toMatch(
      /^--switch-time \d+ \(.*\) is later than the database's clock \(\d+, .*\): T is when the validators were restarted/,
    );
    const conn = await rig.maria.root("future_switch");
    const [rows] = await conn.query("SELECT COUNT(*) AS n FROM cobblestone_writeback_switch");
    await conn.end();
    expect(Number((rows as { n: number }[])[0]!.n)).toBe(0);
    expect((await paid("future_switch")).results).toEqual([0, 0, 0]);
  });

  it("refuses a --switch-time without a zone (exit 2), writing nothing", async () => {
    const db = await unpaid("no_zone");
    const bridge = startBridgeCli(
      [
        "--url",
        rig.server.base,
        "--project",
        db.slug,
        "--state",
        stateFile(db.slug),
        "--write-back",
        "--switch-time",
        "2023-11-14T22:10:00",
      ],
      { COBBLESTONE_TOKEN: db.token, BOINC_DB_URL: db.writer },
    );
    expect(await bridge.exited).toBe(2);
    expect(bridge.stderr()).toMatch(/--switch-time: '2023-11-14T22:10:00' has no time zone/);
    expect((await paid("no_zone")).results).toEqual([0, 0, 0]);
  });
});
