/**
 * Trickle credit through the bridge (issue 50 item 3): msg_from_host rows as BOINC's scheduler
 * leaves them (a client's trickle-up: result name, time, the app's <runtime>), a real MariaDB
 * with BOINC's tables and a real `wrangler dev`. Read-only, each message's credit in the service
 * equals what BOINC's trickle_credit handler grants, worked out here by hand; with --write-back
 * the host, user and team totals and RAC equal what its grant_credit(host, now - 86400, credit)
 * writes (update_average written out in write-back-check.ts), every message is marked handled,
 * and a run SIGKILLed between the service's answer and its commit pays nothing twice.
 */
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { BridgeError } from "../../bridge/shared/errors";
import { bridgeOptions, runBridge } from "../../bridge/running/run";
import type { TrickleSettings } from "../../bridge/database/trickle-config";
import { send } from "../support/send";
import { createBoincDb } from "./boinc-fixture";
import { startBridgeCli } from "./bridge-cli";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProjectTokens } from "./service";
import { boincUpdateAverage, writerDsn } from "./write-back-check";

const ADMIN = "bridge-trickle-admin-token";
const available = suiteNeeds("trickle credit through the bridge", import.meta.url, "mariadb-server", mariadbAvailable());

const CLIMATE: TrickleSettings = { variety: "climate", maxRuntime: 3600, app: null };

/** What a client's trickle-up leaves in msg_from_host.xml: the scheduler drops <variety>, keeps the rest. */
const xmlOf = (text: string) => `      <result_name>climate_1_0</result_name>\n      <time>1700000000</time>\n${text}\n`;

/**
 * The messages, and what BOINC's trickle_credit (started with --variety climate --max_runtime
 * 3600) grants each: credit = runtime x p_fpops x 200 / 86400e9, runtime cut at 3600. Its
 * percentiles are over the hosts with expavg_credit > 10: hosts 7 (3e9) and 8 (5e9); element
 * floor(2 x 50 / 100) = 1 and floor(2 x 95 / 100) = 1 of [3e9, 5e9], so p50 = p95 = 5e9: no host
 * here is above p95 or negative, and each is paid its own p_fpops (the service, without
 * percentiles yet, pays its own too).
 */
const MESSAGES = [
  // 3600 s at 3e9: 3600 x 3e9 x 200 / 86400e9 = 25.
  { id: 1, host: 7, variety: "climate", text: "<runtime>3600.000000</runtime>", credit: 25 },
  // 5000 s cut to 3600: 25.
  { id: 2, host: 7, variety: "climate", text: "<runtime>5000.000000</runtime>", credit: 25 },
  // 1800 s at 5e9: 1800 x 5e9 x 200 / 86400e9 = 1.8e15 / 8.64e13 = 20.8333…
  { id: 3, host: 8, variety: "climate", text: "<runtime>1800</runtime>", credit: 1.8e15 / 8.64e13 },
  // p_fpops 0 (no benchmark yet): 0, and grant_credit still runs (the RAC decays).
  { id: 4, host: 9, variety: "climate", text: "<runtime>3600</runtime>", credit: 0 },
  // No <runtime>: not paid, handled.
  { id: 5, host: 7, variety: "climate", text: "<text>hello</text>", credit: null },
  // Another variety: not this handler's.
  { id: 6, host: 7, variety: "other", text: "<runtime>3600</runtime>", credit: null },
  // A host the database does not have: not paid (host.lookup_id fails), handled.
  { id: 7, host: 999, variety: "climate", text: "<runtime>100</runtime>", credit: null },
  // 7200 s cut to 3600 at 5e9: 3600 x 5e9 x 200 / 86400e9 = 3.6e15 / 8.64e13 = 41.6666…
  { id: 8, host: 8, variety: "climate", text: "<runtime>7200</runtime>", credit: 3.6e15 / 8.64e13 },
  // Paid by BOINC's own handler before it was stopped (handled): 600 x 3e9 x 200 / 86400e9 = 3.6e14 / 8.64e13 = 4.1666…
  { id: 9, host: 7, variety: "climate", text: "<runtime>600</runtime>", credit: 3.6e14 / 8.64e13, handled: 1 },
];
const PAID = MESSAGES.filter((m) => m.credit !== null);

/** Host, user and team rows before: [total_credit, expavg_credit, expavg_time] (T0: three days ago), host owner, user team. */
const HOSTS = new Map([
  [7, { user: 3, p_fpops: 3e9, total: 100, avg: 50, t0: true }],
  [8, { user: 4, p_fpops: 5e9, total: 40, avg: 20, t0: true }],
  [9, { user: 3, p_fpops: 0, total: 0, avg: 0, t0: false }],
]);
const USERS = new Map([
  [3, { team: 5, total: 200, avg: 60, t0: true }],
  [4, { team: 0, total: 0, avg: 0, t0: false }],
]);
const TEAMS = new Map([[5, { total: 300, avg: 70, t0: true }]]);

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

describe.skipIf(!available)("trickle credit through the bridge", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-trickle-", standIn: true });

  /** BOINC's tables with apps climate and other, the holders above and the messages (an hour old); T0 and the read-only DSN. */
  async function trickleDb(name: string): Promise<{ dsn: string; t0: number }> {
    const dsn = await createBoincDb(rig.maria, name);
    const conn = await rig.maria.root(name);
    const [[clock]] = (await conn.query("SELECT UNIX_TIMESTAMP() AS now")) as unknown as [{ now: number }[]];
    const now = Math.floor(Number(clock!.now));
    const t0 = now - 3 * 86400;
    await conn.query(`INSERT INTO platform (id, name) VALUES (1, 'x86_64-pc-linux-gnu');
      INSERT INTO app (id, name) VALUES (1, 'climate'), (2, 'other');
      INSERT INTO app_version (id, appid, version_num, platformid) VALUES (1, 1, 100, 1), (2, 2, 100, 1)`);
    for (const [id, t] of TEAMS)
      await conn.query("INSERT INTO team SET ?", [
        { id, create_time: t0, name: `team ${id}`, total_credit: t.total, expavg_credit: t.avg, expavg_time: t0 },
      ]);
    for (const [id, u] of USERS)
      await conn.query("INSERT INTO user SET ?", [
        {
          id,
          create_time: t0,
          teamid: u.team,
          name: `user ${id}`,
          email_addr: `u${id}@example.org`,
          cross_project_id: `x${id}`,
          total_credit: u.total,
          expavg_credit: u.avg,
          expavg_time: u.t0 ? t0 : 0,
        },
      ]);
    for (const [id, h] of HOSTS)
      await conn.query("INSERT INTO host SET ?", [
        {
          id,
          create_time: t0,
          userid: h.user,
          p_fpops: h.p_fpops,
          total_credit: h.total,
          expavg_credit: h.avg,
          expavg_time: h.t0 ? t0 : 0,
          host_cpid: `cpid${id}`,
        },
      ]);
    for (const m of MESSAGES)
      await conn.query("INSERT INTO msg_from_host SET ?", [
        { id: m.id, create_time: now - 3600, hostid: m.host, variety: m.variety, handled: m.handled ?? 0, xml: xmlOf(m.text) },
      ]);
    await conn.end();
    return { dsn, t0 };
  }

  /** A project whose app climate its operator set to trickle credit (the manage token); the bridge's ingest token. */
  async function project(slug: string): Promise<string> {
    const { manage, ingest } = await createProjectTokens(rig.server.base, ADMIN, slug);
    await send(rig.server.base, "PUT", `/v1/projects/${slug}/apps/climate`, manage, { credit_mode: "trickle", trickle_max_runtime: 3600 });
    return ingest;
  }

  /** The holder rows of database `name`: [total_credit, expavg_credit, expavg_time] by kind and id. */
  async function holders(name: string) {
    const conn = await rig.maria.root(name);
    const read = async (table: string) => {
      const [rows] = await conn.query(`SELECT id, total_credit, expavg_credit, expavg_time FROM \`${table}\``);
      return new Map(
        (rows as Record<string, number>[]).map((r) => [
          Number(r.id),
          [Number(r.total_credit), Number(r.expavg_credit), Number(r.expavg_time)] as const,
        ]),
      );
    };
    const out = { host: await read("host"), user: await read("user"), team: await read("team") };
    const [handled] = await conn.query("SELECT id FROM msg_from_host WHERE handled <> 0 ORDER BY id");
    await conn.end();
    return { ...out, handled: (handled as { id: number }[]).map((r) => Number(r.id)) };
  }

  it("read-only: every message's credit in the service is BOINC's handler's; BOINC's database is left as it is", async () => {
    const { dsn } = await trickleDb("trickle_ro");
    const before = await holders("trickle_ro");
    const { manage, ingest } = await createProjectTokens(rig.server.base, ADMIN, "trickle-ro");
    const stateFile = join(rig.work, "ro.json");
    const run = () =>
      runBridge(
        bridgeOptions(
          { db: dsn, url: rig.server.base, project: "trickle-ro", token: ingest, stateFile },
          { log: () => undefined, trickles: CLIMATE },
        ),
      );

    // The bridge's ingest token may not set an app's credit mode: refused, the fix named, nothing posted.
    await expect(run()).rejects.toThrow(
      /app 'climate': adaptive on the service, trickle by the trickle_credit handler of variety 'climate'[\s\S]*"credit_mode":"trickle"/,
    );
    await send(rig.server.base, "PUT", "/v1/projects/trickle-ro/apps/climate", manage, {
      credit_mode: "trickle",
      trickle_max_runtime: 3600,
    });

    const report = await run();
    // Paid: 1, 2, 3, 4, 8 and 9 (handled or not: BOINC's handler, still running, pays them all); not paid: 5 (no runtime), 7 (unknown host); 6 is another variety.
    expect(report.trickles).toMatchObject({ posted: PAID.length, replayed: 0, unpaid: 2, written: 0 });
    const total = PAID.reduce((s, m) => s + m.credit!, 0);
    expect(close(report.trickles!.credit, total)).toBe(true);

    // Each message's stored payment, read back by posting it again (the service answers it as replayed).
    const again = await send(rig.server.base, "POST", "/v1/projects/trickle-ro/trickles", ingest, {
      messages: PAID.map((m) => ({ id: m.id, app: "climate", host_id: m.host, runtime: Number(/<runtime>([^<]*)</.exec(m.text)![1]) })),
    });
    for (const [i, m] of PAID.entries()) {
      expect(again.messages[i]!.replayed).toBe(true);
      expect(close(again.messages[i]!.granted_credit, m.credit!), `message ${m.id}: ${again.messages[i]!.granted_credit}`).toBe(true);
    }
    // The service's holders: host 7 has 1, 2 and 9, host 8 has 3 and 8 (62.5), host 9 has 4 (0); user 3 owns 7 and 9, in team 5.
    const host7 = 25 + 25 + 3.6e14 / 8.64e13;
    const hostTotal = async (id: number) =>
      (await send(rig.server.base, "GET", `/v1/projects/trickle-ro/hosts/${id}`, ingest)).total_credit;
    expect(close(await hostTotal(7), host7)).toBe(true);
    expect(close(await hostTotal(8), 62.5)).toBe(true);
    expect(await hostTotal(9)).toBe(0);
    expect(close((await send(rig.server.base, "GET", "/v1/projects/trickle-ro/users/3", ingest)).total_credit, host7)).toBe(true);
    expect(close((await send(rig.server.base, "GET", "/v1/projects/trickle-ro/teams/5", ingest)).total_credit, host7)).toBe(true);

    // Nothing written to BOINC: its own handler (still running) marks and pays them.
    expect(await holders("trickle_ro")).toEqual(before);
    // The cursor is the last message of the variety; a second run posts nothing.
    expect(JSON.parse(await readFile(stateFile, "utf8")).trickle_cursor).toBe(9);
    expect((await run()).trickles).toMatchObject({ posted: 0, unpaid: 0 });
  });

  it("--write-back: totals and RAC as grant_credit(now - 86400) writes them, messages handled; SIGKILLed between answer and commit, paid once", async () => {
    const { t0 } = await trickleDb("trickle_wb");
    const writer = await writerDsn(rig.maria, "trickle_wb");
    const ingest = await project("trickle-wb");
    const stateFile = join(rig.work, "wb.json");
    // The trickle handler's settings as config.xml starts it (the database URL from BOINC_DB_URL).
    const config = join(rig.work, "config.xml");
    await writeFile(
      config,
      "<boinc><config><db_name>trickle_wb</db_name></config><daemons>" +
        "<daemon><cmd>feeder -d 3</cmd></daemon><daemon><cmd>trickle_credit -d 3 --variety climate --max_runtime 3600</cmd></daemon>" +
        "</daemons></boinc>",
    );
    const args = [
      "--url",
      rig.server.base,
      "--project",
      "trickle-wb",
      "--state",
      stateFile,
      "--boinc-config",
      config,
      "--write-back",
      "--switch-time",
      "0",
    ];
    const env = { COBBLESTONE_TOKEN: ingest, BOINC_DB_URL: writer };

    // Message 1 held under a row lock: the run posts the batch, the service pays it, and the
    // run's transaction waits for the lock; killed there, it has committed nothing.
    const root = await rig.maria.root("trickle_wb");
    await root.query("START TRANSACTION");
    await root.query("SELECT id FROM msg_from_host WHERE id = 1 FOR UPDATE");
    const killed = startBridgeCli(args, env);
    for (;;) {
      const [rows] = await root.query("SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'");
      if (Number((rows as { n: number }[])[0]!.n) > 0) break;
      if (killed.child.exitCode !== null) throw new Error(`the run ended before it wrote: ${killed.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    killed.child.kill("SIGKILL");
    await killed.exited;
    expect(killed.child.signalCode).toBe("SIGKILL");
    await root.query("ROLLBACK");
    await root.end();
    // The service paid the batch (host 7: messages 1 and 2, 25 each, and 9, which BOINC's handler paid); BOINC has nothing of it.
    const host7Service = 25 + 25 + 3.6e14 / 8.64e13;
    expect(close((await send(rig.server.base, "GET", "/v1/projects/trickle-wb/hosts/7", ingest)).total_credit, host7Service)).toBe(true);
    const untouched = await holders("trickle_wb");
    expect(untouched.handled).toEqual([9]);
    expect(untouched.host.get(7)).toEqual([100, 50, t0]);

    // Run again: the batch is read again (not handled), the service answers it as replayed, and it is written once.
    const again = startBridgeCli(args, env);
    expect(await again.exited, again.stderr()).toBe(0);
    // Its summary: the batch's 6 messages came back as replayed, 5 written (message 9 is BOINC's handler's), 2 not paid.
    expect(again.stdout()).toContain("trickle messages: 6 posted (6 the service already had)");
    expect(again.stdout()).toContain("2 not paid, 5 written back");
    const after = await holders("trickle_wb");
    // Every message of the variety handled, the other variety's left.
    expect(after.handled).toEqual([1, 2, 3, 4, 5, 7, 8, 9]);

    // The time the credit was written (the run's batch time): every moved holder has it.
    const now = after.host.get(7)![2];
    expect(now).toBeGreaterThan(t0 + 3 * 86400 - 60);
    const expected = { host: new Map<number, number[]>(), user: new Map<number, number[]>(), team: new Map<number, number[]>() };
    for (const [kind, rows] of [
      ["host", HOSTS],
      ["user", USERS],
      ["team", TEAMS],
    ] as const)
      for (const [id, r] of rows) expected[kind].set(id, [r.total, r.avg, r.t0 ? t0 : 0]);
    /** grant_credit: the host, its owner, the owner's team (if any), each by update_average at `now` from now - 86400. */
    const grant = (kind: "host" | "user" | "team", id: number, credit: number) => {
      const [total, avg, time] = expected[kind].get(id)!;
      const [a, t] = boincUpdateAverage(now, now - 86400, credit, avg!, time!);
      expected[kind].set(id, [total! + credit, a, t]);
    };
    // Message 9 is BOINC's handler's: its credit is in BOINC already (the rows above), not written again.
    for (const m of PAID.filter((p) => !p.handled)) {
      const owner = HOSTS.get(m.host)!.user;
      grant("host", m.host, m.credit!);
      grant("user", owner, m.credit!);
      const team = USERS.get(owner)!.team;
      if (team) grant("team", team, m.credit!);
    }
    const mismatches: string[] = [];
    for (const kind of ["host", "user", "team"] as const)
      for (const [id, want] of expected[kind]) {
        const got = after[kind].get(id)!;
        for (const [i, column] of ["total_credit", "expavg_credit", "expavg_time"].entries())
          if (!close(got[i]!, want[i]!)) mismatches.push(`${kind} ${id} ${column}: got ${got[i]}, expected ${want[i]}`);
      }
    expect(mismatches).toEqual([]);
    // Host 7 by hand, once: from 50 at T0 (three days before), 25 spread over the gap, then 25 more at no gap (the Taylor term).
    const w = Math.exp((-(now - t0) * Math.LN2) / (7 * 86400));
    const host7 = 50 * w + (1 - w) * (25 / ((now - t0) / 86400)) + (Math.LN2 * 25 * 86400) / (7 * 86400);
    expect(close(after.host.get(7)![1], host7)).toBe(true);

    // A third run: nothing left to pay or write.
    const report = await runBridge(
      bridgeOptions(
        { db: writer, url: rig.server.base, project: "trickle-wb", token: ingest, stateFile },
        { log: () => undefined, writeBack: true, trickles: CLIMATE },
      ),
    );
    expect(report.trickles).toMatchObject({ posted: 0, written: 0 });
    expect(JSON.parse(await readFile(stateFile, "utf8")).trickle_cursor).toBe(9);
    expect(await holders("trickle_wb")).toEqual(after);
  });
  it("--write-back through a lying service: an inflated or missing credit is refused with nothing written; the answer's now is not the grant's time", async () => {
    const { t0 } = await trickleDb("trickle_lies");
    const writer = await writerDsn(rig.maria, "trickle_lies");
    const ingest = await project("trickle-lies");
    const before = await holders("trickle_lies");
    const standIn = rig.standIn;
    const stateFile = join(rig.work, "lies.json");
    const run = () =>
      runBridge(
        bridgeOptions(
          { db: writer, url: standIn.base, project: "trickle-lies", token: ingest, stateFile },
          { log: () => undefined, writeBack: true, switchTime: 0, trickles: CLIMATE },
        ),
      );
    const refusal = () =>
      run().then(
        () => new Error("no refusal"),
        (e: unknown) => e as Error,
      );
    type Answer = { now: number; messages: { id: number; granted_credit: number }[] };
    const trickles = /^POST .*\/trickles$/;
    try {
      // Message 1 (3,600 s at host 7's 3e9 FLOPS: at most 25) answered with a credit a thousand times that.
      standIn.fault(
        trickles,
        {
          kind: "rewrite",
          rewrite: (body) => {
            const a = body as Answer;
            return { ...a, messages: a.messages.map((m) => (m.id === 1 ? { ...m, granted_credit: m.granted_credit * 1000 } : m)) };
          },
        },
        1,
      );
      const inflated = await refusal();
      expect(inflated).toBeInstanceOf(BridgeError);
      expect(inflated.message).toContain(
        "message 1: granted_credit 25000 is more than BOINC's trickle handler pays it (25: 3600 s at 3000000000 FLOPS)",
      );
      // Message 3 left out of the answer.
      standIn.fault(
        trickles,
        {
          kind: "rewrite",
          rewrite: (body) => ({ ...(body as Answer), messages: (body as Answer).messages.filter((m) => m.id !== 3) }),
        },
        1,
      );
      const missing = await refusal();
      expect(missing.message).toContain("message 3 is missing from the answer");
      // Neither wrote anything into BOINC, nor marked a message, nor moved the cursor.
      expect(await holders("trickle_lies")).toEqual(before);
      expect(JSON.parse(await readFile(stateFile, "utf8").catch(() => "{}")).trickle_cursor ?? 0).toBe(0);

      // The true credits, with the answer's now a year ahead: written at the database's clock.
      standIn.fault(
        trickles,
        { kind: "rewrite", rewrite: (body) => ({ ...(body as Answer), now: (body as Answer).now + 365 * 86400 }) },
        1,
      );
      const report = await run();
      expect(report.trickles).toMatchObject({ posted: 6, replayed: 6, written: 5 });
      const after = await holders("trickle_lies");
      const conn = await rig.maria.root("trickle_lies");
      const [[clock]] = (await conn.query("SELECT UNIX_TIMESTAMP() AS now")) as unknown as [{ now: number }[]];
      await conn.end();
      const written = after.host.get(7)![2];
      expect(written).toBeGreaterThan(t0 + 3 * 86400 - 60);
      expect(written).toBeLessThanOrEqual(Number(clock!.now));
      // Host 7: 100 before, messages 1 and 2 at 25 each (9 is BOINC's handler's); host 8: 40, 20.833… and 41.666….
      expect(close(after.host.get(7)![0], 100 + 25 + 25)).toBe(true);
      expect(close(after.host.get(8)![0], 40 + 1.8e15 / 8.64e13 + 3.6e15 / 8.64e13)).toBe(true);
      expect(after.handled).toEqual([1, 2, 3, 4, 5, 7, 8, 9]);
    } finally {
      standIn.clear();
    }
  });
  it("--write-back refuses an account without docs/bridge.md's GRANT on msg_from_host, naming it; with the doc's line it writes", async () => {
    await trickleDb("trickle_grant");
    const ingest = await project("trickle-grant");
    const account = "'trickle_wb'@'127.0.0.1'";
    const root = await rig.maria.root();
    // Every privilege the write-back of results uses (table-wide here), none on msg_from_host but SELECT.
    await root.query(`CREATE USER ${account} IDENTIFIED BY 'tr1ckle';
      GRANT SELECT, INSERT, DELETE, CREATE ON trickle_grant.* TO ${account};
      GRANT UPDATE ON trickle_grant.result TO ${account}; GRANT UPDATE ON trickle_grant.workunit TO ${account};
      GRANT UPDATE ON trickle_grant.host TO ${account}; GRANT UPDATE ON trickle_grant.user TO ${account};
      GRANT UPDATE ON trickle_grant.team TO ${account};`);
    const dsn = `mysql://trickle_wb:tr1ckle@127.0.0.1:${rig.maria.port}/trickle_grant`;
    const run = () =>
      runBridge(
        bridgeOptions(
          { db: dsn, url: rig.server.base, project: "trickle-grant", token: ingest, stateFile: join(rig.work, "grant.json") },
          { log: () => undefined, writeBack: true, switchTime: 0, trickles: CLIMATE },
        ),
      );
    const e = await run().then(
      () => new Error("no refusal"),
      (e: unknown) => e as Error,
    );
    expect(e).toBeInstanceOf(BridgeError);
    // The doc's line, its placeholders filled in, is the fix the refusal names.
    const doc = readFileSync(new URL("../../docs/bridge.md", import.meta.url), "utf8");
    const line = /GRANT UPDATE \(handled\) ON boinc_db\.msg_from_host TO 'cobblestone_wb'@'bridge-host';/
      .exec(doc)![0]
      .replace("boinc_db.", "trickle_grant.")
      .replace("'cobblestone_wb'@'bridge-host'", account);
    expect(e.message).toContain(line);
    expect((await holders("trickle_grant")).handled).toEqual([9]);
    await root.query(line);
    await root.end();
    const report = await run();
    expect(report.trickles).toMatchObject({ posted: 6, written: 5 });
    expect((await holders("trickle_grant")).handled).toEqual([1, 2, 3, 4, 5, 7, 8, 9]);
  });
  it("--follow --write-back: 1,500 waiting messages in two requests, and one sent while it follows, each paid and written once", async () => {
    const { t0 } = await trickleDb("trickle_follow");
    const writer = await writerDsn(rig.maria, "trickle_follow");
    const ingest = await project("trickle-follow");
    // 1,500 more messages of host 7, 60 s each: 60 x 3e9 x 200 / 86400e9 = 3.6e13 / 8.64e13 = 0.41666… each, 625 in all.
    const conn = await rig.maria.root("trickle_follow");
    const rows = Array.from({ length: 1500 }, (_, i) => [100 + i, t0, 7, "climate", 0, xmlOf("<runtime>60</runtime>")]);
    await conn.query("INSERT INTO msg_from_host (id, create_time, hostid, variety, handled, xml) VALUES ?", [rows]);
    const stop = new AbortController();
    const running = runBridge(
      bridgeOptions(
        { db: writer, url: rig.server.base, project: "trickle-follow", token: ingest, stateFile: join(rig.work, "follow.json") },
        { log: () => undefined, writeBack: true, switchTime: 0, trickles: CLIMATE, follow: { pollSeconds: 0.5 }, signal: stop.signal },
      ),
    );
    running.catch(() => undefined);
    const handled = async () => {
      const [[row]] = (await conn.query("SELECT COUNT(*) AS n FROM msg_from_host WHERE handled <> 0")) as unknown as [{ n: number }[]];
      return Number(row!.n);
    };
    const until = async (n: number) => {
      for (let i = 0; i < 600 && (await handled()) < n; i++) await new Promise((r) => setTimeout(r, 100));
      return handled();
    };
    // 7 of the fixture's (and 9, handled already) and the 1,500.
    expect(await until(1508)).toBe(1508);
    // One more, 3,600 s: 25.
    await conn.query("INSERT INTO msg_from_host SET ?", [
      { id: 5000, create_time: t0, hostid: 7, variety: "climate", handled: 0, xml: xmlOf("<runtime>3600</runtime>") },
    ]);
    expect(await until(1509)).toBe(1509);
    stop.abort();
    const report = await running;
    await conn.end();
    // Batches of at most 1,000 read messages: the fixture's 8 of the variety (6 of them paid) and 992 of the 1,500, then the
    // other 508, then the one sent later. Written: all but message 9, BOINC's handler's.
    expect(report.trickles).toMatchObject({ requests: 3, posted: 1507, replayed: 0, written: 1506 });
    // Host 7: 100 before; 25 + 25 (messages 1, 2), 625, 25 (message 5000).
    const host7 = (await holders("trickle_follow")).host.get(7)!;
    expect(close(host7[0], 100 + 25 + 25 + 1500 * (3.6e13 / 8.64e13) + 25)).toBe(true);
  });
  it("--write-back while BOINC's handler still runs: a message it marked after the read is refused, nothing of the batch written", async () => {
    await trickleDb("trickle_both");
    const writer = await writerDsn(rig.maria, "trickle_both");
    const ingest = await project("trickle-both");
    const before = await holders("trickle_both");
    // Message 1 under a row lock: the run posts its batch and waits; "the handler" marks it meanwhile.
    const root = await rig.maria.root("trickle_both");
    await root.query("START TRANSACTION");
    await root.query("SELECT id FROM msg_from_host WHERE id = 1 FOR UPDATE");
    const running = runBridge(
      bridgeOptions(
        { db: writer, url: rig.server.base, project: "trickle-both", token: ingest, stateFile: join(rig.work, "both.json") },
        { log: () => undefined, writeBack: true, switchTime: 0, trickles: CLIMATE },
      ),
    );
    let settled = false;
    const refused = running.then(
      () => new Error("no refusal"),
      (e: unknown) => e as Error,
    );
    void refused.then(() => (settled = true));
    for (;;) {
      const [rows] = await root.query("SELECT COUNT(*) AS n FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'");
      if (Number((rows as { n: number }[])[0]!.n) > 0) break;
      if (settled) throw new Error(`the run ended before it wrote: ${(await refused).message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await root.query("UPDATE msg_from_host SET handled = 1 WHERE id = 1");
    await root.query("COMMIT");
    await root.end();
    const e = await refused;
    expect(e).toBeInstanceOf(BridgeError);
    expect(e.message).toMatch(
      /^--write-back: trickle messages 1 were marked handled by someone else[\s\S]*trickle_credit daemon still runs/,
    );
    // Only "the handler's" mark: no credit, no other mark.
    const after = await holders("trickle_both");
    expect(after.handled).toEqual([1, 9]);
    expect({ host: after.host, user: after.user, team: after.team }).toEqual({ host: before.host, user: before.user, team: before.team });
  });
});
