/**
 * What a faulty, misdeployed or compromised service answers is never written (issue 48, items 1
 * and 2): a stand-in service (stand-in-service.ts, in front of the real `wrangler dev`) rewrites
 * the answers to the bridge's requests of passes, and BOINC's database is read afterwards. A
 * credit BOINC would never grant (negative, over the validator's --max_granted_credit), results
 * left out of the answer, a pass too many, a result answered twice: each refused with the results
 * named, exit 2, nothing of the request written and the cursor not moved; the next run against a
 * sound service pays every result. And the canonical-credit repair never puts back a credit out
 * of bounds that an admin fixed by hand.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { BridgeError } from "../../bridge/shared/errors";
import { type BridgeOptions, bridgeOptions, runBridge } from "../../bridge/running/run";
import { startBridgeCli } from "./bridge-cli";
import { smallBoincDb } from "./boinc-fixture";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-faulty-service-admin-token";
const T = 1_700_000_000;
const PASS_BATCHES = /^POST \/v1\/projects\/[^/]+\/pass-batches$/;
const available = suiteNeeds("the bridge against a faulty service", import.meta.url, "mariadb-server", mariadbAvailable());

type Answer = { passes: { now: number; workunits: { id: number; results: { id: number; granted_credit: number }[] }[] }[] };

describe.skipIf(!available)("the bridge against a faulty service", () => {
  const rig = bridgeRig(ADMIN, { standIn: true, work: "cobblestone-faulty-service-" });

  const stateFile = (slug: string) => join(rig.work, `${slug}.state.json`);
  const options = (dsn: string, slug: string, token: string, extra: Partial<BridgeOptions> = {}): BridgeOptions =>
    bridgeOptions(
      { db: dsn, url: rig.standIn.base, project: slug, token, stateFile: stateFile(slug) },
      { log: () => undefined, writeBack: true, switchTime: T - 1000, ...extra },
    );

  /** Three results as a --no_credit validator leaves them (granted 0) at T, T+1, T+2, host 7 of user 3 in team 5; a project for them. */
  async function unpaid(name: string) {
    await smallBoincDb(rig.maria, name, T, [{ granted_credit: 0 }, { granted_credit: 0 }, { granted_credit: 0 }]);
    const slug = name.replace(/_/g, "-");
    return { writer: await writerDsn(rig.maria, name), slug, token: await createProject(rig.server.base, ADMIN, slug) };
  }

  /** Every credit column the write-back moves, as BOINC's database holds it now. */
  async function credit(name: string) {
    const conn = await rig.maria.root(name);
    const one = async (sql: string) => Number(((await conn.query(sql))[0] as { v: number }[])[0]!.v);
    const columns = {
      results: ((await conn.query("SELECT granted_credit AS g FROM result ORDER BY id"))[0] as { g: number }[]).map((r) => Number(r.g)),
      workunits: ((await conn.query("SELECT canonical_credit AS c FROM workunit ORDER BY id"))[0] as { c: number }[]).map((r) =>
        Number(r.c),
      ),
      host: await one("SELECT total_credit + expavg_credit AS v FROM host WHERE id = 7"),
      user: await one("SELECT total_credit + expavg_credit AS v FROM user WHERE id = 3"),
      team: await one("SELECT total_credit + expavg_credit AS v FROM team WHERE id = 5"),
      writtenRows: await one("SELECT COUNT(*) AS v FROM cobblestone_writeback"),
    };
    await conn.end();
    return columns;
  }
  const NOTHING_WRITTEN = { results: [0, 0, 0], workunits: [0, 0, 0], host: 0, user: 0, team: 0, writtenRows: 0 };

  /** The cursor the state file holds, or null when no request was ever saved. */
  async function savedCursor(slug: string) {
    const text = await readFile(stateFile(slug), "utf8").catch(() => null);
    return text === null ? null : (JSON.parse(text) as { cursor: { mod_time: number } }).cursor.mod_time;
  }

  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => new Error("no refusal"),
      (e: unknown) => e as Error,
    );

  /** A run against the stand-in answering every request of passes through `rewrite`: refused, nothing written, cursor not moved; then a sound run pays all three. */
  async function refusedThenPaid(name: string, rewrite: (a: Answer) => Answer, message: RegExp) {
    const db = await unpaid(name);
    rig.standIn.clear();
    rig.standIn.fault(PASS_BATCHES, { kind: "rewrite", rewrite: (body) => rewrite(body as Answer) });
    const e = await refusal(runBridge(options(db.writer, db.slug, db.token)));
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.message).toMatch(
      /^the service's answer to POST 3 passes at 1700000000…1700000002 does not match the request, so none of it is written:/,
    );
    expect(e.message).toMatch(message);
    expect(e.message).toMatch(
      /Nothing of this request was written into the BOINC database and the cursor was not moved: the next run posts the same request again/,
    );
    expect(await credit(name)).toEqual(NOTHING_WRITTEN);
    expect(await savedCursor(db.slug)).toBeNull();

    rig.standIn.clear();
    const report = await runBridge(options(db.writer, db.slug, db.token));
    expect(report.write_back).toMatchObject({ written: 3, already: 0 });
    const paid = await credit(name);
    expect(paid.results.every((c) => c > 0)).toBe(true);
    expect(paid.workunits).toEqual(paid.results);
    expect(paid.writtenRows).toBe(3);
    return paid;
  }

  const eachResult = (a: Answer, f: (r: { granted_credit: number }) => void) => {
    for (const p of a.passes) for (const w of p.workunits) for (const r of w.results) f(r);
    return a;
  };

  it("refuses a negative credit, naming the result, the app and the value (exit 2 from the command line)", async () => {
    const db = await unpaid("negative");
    rig.standIn.clear();
    rig.standIn.fault(PASS_BATCHES, { kind: "rewrite", rewrite: (body) => eachResult(body as Answer, (r) => (r.granted_credit = -1000)) });
    const bridge = startBridgeCli(
      ["--url", rig.standIn.base, "--project", db.slug, "--state", stateFile(db.slug), "--write-back", "--switch-time", String(T - 1000)],
      { COBBLESTONE_TOKEN: db.token, BOINC_DB_URL: db.writer },
    );
    expect(await bridge.exited, bridge.stderr()).toBe(2);
    expect(bridge.stderr()).toMatch(
      /result 1 \(app alpha\): granted_credit -1000 is negative\n {2}result 2 \(app alpha\): granted_credit -1000 is negative/,
    );
    expect(bridge.stdout()).toBe("");
    expect(await credit("negative")).toEqual(NOTHING_WRITTEN);
    expect(await savedCursor(db.slug)).toBeNull();
  });

  it("refuses a credit over BOINC's max_granted_credit (7.3e7 by default), then pays every result once the service is sound", async () => {
    const paid = await refusedThenPaid(
      "too_high",
      (a) => eachResult(a, (r) => (r.granted_credit = 1e12)),
      /result 3 \(app alpha\): granted_credit 1000000000000 is more than the most BOINC grants for this app \(73000000\)/,
    );
    // Each result's credit once on the host, its user and the user's team (BOINC's chain).
    const sum = paid.results.reduce((s, c) => s + c, 0);
    const conn = await rig.maria.root("too_high");
    const [rows] = await conn.query(
      "SELECT (SELECT total_credit FROM host WHERE id = 7) AS h, (SELECT total_credit FROM team WHERE id = 5) AS t",
    );
    await conn.end();
    const { h, t } = (rows as { h: number; t: number }[])[0]!;
    expect(Math.abs(h - sum) / sum).toBeLessThan(1e-12);
    expect(Math.abs(t - sum) / sum).toBeLessThan(1e-12);
  });

  it("refuses an answer that leaves results out (workunits: [])", async () => {
    await refusedThenPaid(
      "no_workunits",
      (a) => {
        for (const p of a.passes) p.workunits = [];
        return a;
      },
      /result 1 posted in the pass at 1700000000 is missing from the answer\n {2}result 2 posted in the pass at 1700000001 is missing/,
    );
  });

  it("refuses an answer without passes (passes: [])", async () => {
    await refusedThenPaid("no_passes", () => ({ passes: [] }), /it answers 0 passes to the 3 posted/);
  });

  it("refuses an answer with one pass more than posted", async () => {
    await refusedThenPaid(
      "extra_pass",
      (a) => {
        a.passes.push(a.passes.at(-1)!);
        return a;
      },
      /it answers 4 passes to the 3 posted/,
    );
  });

  it("refuses an answer that has a result twice", async () => {
    await refusedThenPaid(
      "twice",
      (a) => {
        const w = a.passes[0]!.workunits[0]!;
        w.results.push({ ...w.results[0]! });
        return a;
      },
      /result 1 \(app alpha\) is answered more than once/,
    );
  });

  it("takes each validator's --max_granted_credit from config.xml: a credit over it is refused", async () => {
    const db = await unpaid("config_cap");
    rig.standIn.clear();
    const config = join(rig.work, "config.xml");
    await writeFile(
      config,
      `<boinc><config><db_name>config_cap</db_name></config><daemons><daemon><cmd>sample_bitwise_validator --app alpha --max_granted_credit 0.001 --no_credit</cmd></daemon></daemons></boinc>`,
    );
    const bridge = startBridgeCli(
      [
        "--url",
        rig.standIn.base,
        "--project",
        db.slug,
        "--state",
        stateFile(db.slug),
        "--db",
        db.writer,
        "--boinc-config",
        config,
        "--write-back",
      ].concat(["--switch-time", String(T - 1000)]),
      { COBBLESTONE_TOKEN: db.token },
    );
    // The real service's credit for these results (about 23: 1e13 FLOPs) is over the validator's 0.001.
    expect(await bridge.exited, bridge.stderr()).toBe(2);
    expect(bridge.stderr()).toMatch(
      /result 1 \(app alpha\): granted_credit [\d.]+ is more than the most BOINC grants for this app \(0\.001\)/,
    );
    expect(await credit("config_cap")).toEqual(NOTHING_WRITTEN);
  });

  it("the canonical-credit repair never puts back a credit out of bounds that an admin fixed by hand", async () => {
    const db = await unpaid("repair_bounds");
    rig.standIn.clear();
    await runBridge(options(db.writer, db.slug, db.token));
    const conn = await rig.maria.root("repair_bounds");
    // As an older bridge would have left it: -1000 written for result 1, which the admin then set right by hand (5).
    // Workunit 2's canonical_credit written over by a validator (0): the repair's own case.
    await conn.query(
      "UPDATE cobblestone_writeback SET credit = -1000 WHERE result_id = 1; UPDATE workunit SET canonical_credit = 5 WHERE id = 1; UPDATE workunit SET canonical_credit = 0 WHERE id = 2",
    );
    await conn.end();
    const report = await runBridge(options(db.writer, db.slug, db.token));
    expect(report.write_back).toMatchObject({ written: 0, repaired: 1 });
    const after = await credit("repair_bounds");
    expect(after.workunits[0]).toBe(5);
    expect(after.workunits[1]).toBe(after.results[1]);
  });
});
