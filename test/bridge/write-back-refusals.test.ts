/**
 * Where --write-back would be unsafe it refuses with the reason, and writes nothing (issue 35):
 * a validator still granting after the switch point, a read-only account, a read-only server
 * (a replica), an app whose credit mode the bridge cannot pay; and the switch point itself:
 * results BOINC granted before it keep their credit.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeError } from "../../bridge/errors";
import { type BridgeOptions, bridgeOptions, runBridge } from "../../bridge/run";
import { startWranglerDev, type WranglerDev } from "../browser/wrangler-dev";
import { send } from "../support/send";
import { smallBoincDb } from "./boinc-fixture";
import { type MariaDb, mariadbAvailable, startMariaDb } from "./mariadb";
import { createProject } from "./service";
import { writerDsn } from "./write-back-check";

const ADMIN = "bridge-writeback-refusals-admin-token";
const T = 1_700_000_000;
const available = suiteNeeds("--write-back's refusals", import.meta.url, "mariadb-server", mariadbAvailable());

describe.skipIf(!available)("--write-back's refusals", () => {
  let maria: MariaDb;
  let server: WranglerDev;
  let work: string;

  beforeAll(async () => {
    [maria, server] = await Promise.all([startMariaDb(), startWranglerDev(ADMIN)]);
    work = await mkdtemp(join(tmpdir(), "cobblestone-wb-refusals-"));
  });
  afterAll(async () => {
    await Promise.all([maria?.stop(), server?.stop(), work && rm(work, { recursive: true, force: true })]);
  });

  const options = (dsn: string, slug: string, token: string, extra: Partial<BridgeOptions> = {}): BridgeOptions =>
    bridgeOptions(
      { db: dsn, url: server.base, project: slug, token, stateFile: join(work, `${slug}.state.json`) },
      { log: () => undefined, writeBack: true, ...extra },
    );

  /** Three results granted 1 credit each by BOINC's validator (at T, T+1, T+2), host 7 of user 3 in team 5. */
  async function granted(name: string) {
    const dsn = await smallBoincDb(maria, name, T, [{}, {}, {}]);
    return { reader: dsn, writer: await writerDsn(maria, name) };
  }

  const credit = async (name: string) => {
    const conn = await maria.root(name);
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
    const token = await createProject(server.base, ADMIN, "still-granting");
    const e = (await refusal(runBridge(options(db.writer, "still-granting", token, { switchTime: T - 100 })))) as Error;
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.message).toMatch(
      /results validated after the switch point \(2023-11-14T22:11:40\.000Z\) already have credit the bridge did not write \(result 1, 2, 3\): a validator still grants/,
    );
    // As BOINC left it: 1 credit per result, nothing added to the host.
    expect(await credit("still_granting")).toEqual({ results: 3, host: 0 });
  });

  it("leaves BOINC's credit alone on results validated before the switch point", async () => {
    const db = await granted("before_switch");
    const token = await createProject(server.base, ADMIN, "before-switch");
    const report = await runBridge(options(db.writer, "before-switch", token, { switchTime: T + 1000 }));
    expect(report.results).toBe(3);
    expect(report.write_back).toMatchObject({ written: 0, boinc_granted: 3 });
    expect(await credit("before_switch")).toEqual({ results: 3, host: 0 });
  });

  it("the first write-back run needs --switch-time; later runs keep the stored one", async () => {
    const db = await granted("no_switch");
    const token = await createProject(server.base, ADMIN, "no-switch");
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
    const token = await createProject(server.base, ADMIN, "ro-account");
    const e = (await refusal(runBridge(options(db.reader, "ro-account", token, { switchTime: 0, creditByApp: true })))) as Error;
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.message).toMatch(/^--write-back: this database account may not write what the write-back writes \(a read-only account\?\)/);
    for (const table of ["result", "workunit", "host", "user", "team", "credit_user", "credit_team"])
      expect(e.message).toContain(`\n  ${table}: `);
    expect(await credit("read_only_account")).toEqual({ results: 3, host: 0 });
  });

  it("refuses an app whose credit mode it cannot pay (fixed, post_assigned), by name", async () => {
    const db = await granted("fixed_mode");
    const token = await createProject(server.base, ADMIN, "fixed-mode");
    await send(server.base, "PUT", "/v1/projects/fixed-mode/apps/beta", token, { credit_mode: "fixed" });
    const e = (await refusal(runBridge(options(db.writer, "fixed-mode", token, { switchTime: 0 })))) as Error;
    expect(e.message).toMatch(/^--write-back: app 'beta' \(credit_mode fixed\): its credit comes from the workunit's canonical_credit/);
  });

  it("refuses a read-only server (a replica)", async () => {
    const db = await granted("replica");
    const token = await createProject(server.base, ADMIN, "replica");
    const root = await maria.root();
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
