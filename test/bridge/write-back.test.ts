/**
 * --write-back end to end (issue 35): real MariaDB with BOINC's tables holding a trace as a
 * --no_credit validator leaves it, a real `wrangler dev`, the bridge between them. Every credit
 * column of every result, workunit, host, user, team, credit_user and credit_team row must
 * equal BOINC's grants (the trace's expected numbers; totals and averages by hand from them,
 * BOINC's update_average written out in write-back-check.ts), or the service's under the fair
 * policy; a bridge killed again and again writes nothing twice and loses nothing; two bridges
 * at once: one runs, one refuses; a SIGKILLed run never blocks the next.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { type BridgeOptions, bridgeOptions, runBridge } from "../../bridge/running/run";
import { runLockName } from "../../bridge/running/run-guard";
import { send } from "../support/send";
import { boincDbWithTrace } from "./boinc-fixture";
import { killAgainAndAgain, startBridgeCli } from "./bridge-cli";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject, createProjectTokens } from "./service";
import type { TraceExpected, TraceOp } from "./trace-types";
import { asNoCreditValidatorLeftIt, checker, expectedColumns, holderMismatches, writerDsn } from "./write-back-check";

const ADMIN = "bridge-writeback-admin-token";
const available = suiteNeeds("the bridge's write-back into a BOINC database", import.meta.url, "mariadb-server", mariadbAvailable());

describe.skipIf(!available)("the bridge's write-back into a BOINC database", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-writeback-" });

  /** A trace's database as a --no_credit validator leaves it, and a DSN that may write it. */
  async function prepared(name: string, trace: string) {
    const boinc = await boincDbWithTrace(rig.maria, name, trace);
    await asNoCreditValidatorLeftIt(rig.maria, name);
    return { ...boinc, writer: await writerDsn(rig.maria, name) };
  }

  const options = (dsn: string, slug: string, token: string, extra: Partial<BridgeOptions> = {}): BridgeOptions =>
    bridgeOptions(
      { db: dsn, url: rig.server.base, project: slug, token, stateFile: join(rig.work, `${slug}.state.json`) },
      { log: () => undefined, writeBack: true, creditByApp: true, switchTime: 0, ...extra },
    );

  /** Every credit column in database `name` against the hand computation from `credit` (result id → granted). */
  async function columnMismatches(name: string, ops: TraceOp[], credit: Map<number, number>, expected?: TraceExpected) {
    const conn = await rig.maria.root(name);
    const rows = async <T>(sql: string) => (await conn.query(sql))[0] as T[];
    const hosts = await rows<{ id: number; userid: number; total_credit: number; expavg_credit: number; expavg_time: number }>(
      "SELECT id, userid, total_credit, expavg_credit, expavg_time FROM host",
    );
    const users = await rows<{ id: number; teamid: number; total_credit: number; expavg_credit: number; expavg_time: number }>(
      "SELECT id, teamid, total_credit, expavg_credit, expavg_time FROM user",
    );
    const teams = await rows<{ id: number; total_credit: number; expavg_credit: number; expavg_time: number }>(
      "SELECT id, total_credit, expavg_credit, expavg_time FROM team",
    );
    const apps = await rows<{ id: number; name: string }>("SELECT id, name FROM app");
    const want = expectedColumns(
      ops,
      credit,
      new Map(hosts.map((h) => [h.id, h.userid])),
      new Map(users.map((u) => [u.id, u.teamid])),
      new Map(apps.map((a) => [a.name, a.id])),
    );
    const { mismatches, check } = checker();
    for (const r of await rows<{ id: number; granted_credit: number }>("SELECT id, granted_credit FROM result"))
      check(`result ${r.id} granted_credit`, r.granted_credit, want.results.get(r.id) ?? 0);
    for (const w of await rows<{ id: number; canonical_credit: number }>("SELECT id, canonical_credit FROM workunit"))
      check(`workunit ${w.id} canonical_credit`, w.canonical_credit, want.workunits.get(w.id) ?? 0);
    await holderMismatches(conn, want, { mismatches, check });
    // The totals are also the trace's own (BOINC's numbers): every credit granted lands on its host, user and team.
    if (expected?.hosts) {
      for (const [kind, list] of [
        ["hosts", hosts],
        ["users", users],
        ["teams", teams],
      ] as const) {
        const byId = new Map<number, { total_credit: number }>(list.map((r) => [r.id, r]));
        for (const e of expected[kind]) check(`${kind} ${e.id} total_credit (trace)`, byId.get(e.id)?.total_credit, e.total_credit);
      }
    }
    await conn.end();
    return mismatches;
  }

  it("writes back BOINC's grants of bridge-11: every credit column to 1e-9 relative, credit_user and credit_team included", async () => {
    const boinc = await prepared("wb_boinc", "bridge-11");
    const token = await createProject(rig.server.base, ADMIN, "wb-boinc");
    const report = await runBridge(options(boinc.writer, "wb-boinc", token));
    const granted = new Map(boinc.expected.results.map((r) => [r.id, r.granted_credit]));
    // Every result the trace validated is written back once; none skipped, none missing a holder.
    const valid = boinc.ops.flatMap((o) =>
      o.op === "pass" ? o.workunits.flatMap((w) => w.results.filter((r) => r.validate_state === "valid")) : [],
    );
    expect(report.write_back).toMatchObject({ written: valid.length, already: 0, skipped: 0, missing_holders: 0 });
    expect(await columnMismatches("wb_boinc", boinc.ops, granted, boinc.expected)).toEqual([]);
    // The trace's own numbers for results and workunits, directly.
    const conn = await rig.maria.root("wb_boinc");
    const [rows] = await conn.query("SELECT id, granted_credit FROM result");
    const inDb = new Map((rows as { id: number; granted_credit: number }[]).map((r) => [r.id, r.granted_credit]));
    const { mismatches, check } = checker();
    for (const r of boinc.expected.results) check(`result ${r.id}`, inDb.get(r.id), r.granted_credit);
    const [wus] = await conn.query("SELECT id, canonical_credit FROM workunit");
    const wuDb = new Map((wus as { id: number; canonical_credit: number }[]).map((w) => [w.id, w.canonical_credit]));
    for (const w of boinc.expected.workunits) check(`workunit ${w.id}`, wuDb.get(w.id), w.credit);
    await conn.end();
    expect(mismatches).toEqual([]);

    // Run again: nothing new, nothing written twice.
    const again = await runBridge(options(boinc.writer, "wb-boinc", token));
    expect(again.write_back).toMatchObject({ written: 0 });
    expect(await columnMismatches("wb_boinc", boinc.ops, granted, boinc.expected)).toEqual([]);
  });

  it("under the fair policy writes back the service's own grants (fair-e-1)", async () => {
    const boinc = await prepared("wb_fair", "fair-e-1");
    const { manage, ingest: token } = await createProjectTokens(rig.server.base, ADMIN, "wb-fair");
    for (const name of boinc.appNumbers.keys()) {
      await send(rig.server.base, "PUT", `/v1/projects/wb-fair/apps/${name}`, manage, { credit_policy: "fair" });
    }
    const csv = join(rig.work, "wb-fair.csv");
    await runBridge(options(boinc.writer, "wb-fair", token, { compare: csv }));
    const { apps } = await send(rig.server.base, "GET", "/v1/projects/wb-fair/apps", token);
    expect(apps.every((a) => a.credit_policy === "fair")).toBe(true);
    // The service's grants, as it answered them.
    const service = new Map(
      (await readFile(csv, "utf8"))
        .trim()
        .split("\n")
        .slice(1)
        .map((line) => line.split(","))
        .map(([id, , , , cobblestone]) => [Number(id), Number(cobblestone)] as [number, number]),
    );
    // The service answered for every result the trace decides; the bridge's replay runs its own rescale
    // schedule (every 600 s), not the trace's, so the fair grants are the service's, not the reference model's.
    expect(service.size).toBe(boinc.expected.results.length);
    expect(await columnMismatches("wb_fair", boinc.ops, service)).toEqual([]);
  });

  it("two bridges at once: one runs, the other refuses (exit 76); a SIGKILLed run does not block the next", async () => {
    const boinc = await prepared("wb_guard", "bridge-11");
    const token = await createProject(rig.server.base, ADMIN, "wb-guard");
    const env = { COBBLESTONE_TOKEN: token, BOINC_DB_URL: boinc.writer };
    /** A write-back run of the same project and database, with its own state file. */
    const guardRun = (stateFile: string) =>
      startBridgeCli(
        [
          "--url",
          rig.server.base,
          "--project",
          "wb-guard",
          "--state",
          join(rig.work, stateFile),
          "--write-back",
          "--credit-by-app",
          "--switch-time",
          "0",
        ],
        env,
      );
    // Two state files: the database lock alone keeps them apart (as two machines would be).
    const a = guardRun("guard-a.json");
    const b = guardRun("guard-b.json");
    const codes = await Promise.all([a.exited, b.exited]);
    expect([...codes].sort(), [a, b].map((run) => run.stderr()).join("\n")).toEqual([0, 76]);
    const refused = codes[0] === 76 ? a : b;
    expect(refused.stderr().trim()).toMatch(
      new RegExp(
        `^bridge: another bridge run is working on project 'wb-guard' of database 'wb_guard' \\(it holds the database lock '${runLockName("wb_guard", "wb-guard")}'`,
      ),
    );

    // A run killed while it holds the lock: the server frees the lock with its connection.
    const root = await rig.maria.root();
    const killed = guardRun("guard-a.json");
    for (;;) {
      const [rows] = await root.query("SELECT IS_USED_LOCK(?) AS holder", [runLockName("wb_guard", "wb-guard")]);
      if ((rows as { holder: number | null }[])[0]!.holder !== null || killed.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    killed.child.kill("SIGKILL");
    await killed.exited;
    expect(killed.child.signalCode).toBe("SIGKILL");
    await root.end();
    const next = guardRun("guard-a.json");
    expect(await next.exited, next.stderr()).toBe(0);
    const granted = new Map(boinc.expected.results.map((r) => [r.id, r.granted_credit]));
    expect(await columnMismatches("wb_guard", boinc.ops, granted, boinc.expected)).toEqual([]);
  });

  it("killed (SIGKILL) at 20 random points of a write-back and started again each time: nothing lost, nothing doubled", async () => {
    const boinc = await prepared("wb_kill", "bridge-11");
    const token = await createProject(rig.server.base, ADMIN, "wb-kill");
    const env = { COBBLESTONE_TOKEN: token, BOINC_DB_URL: boinc.writer };
    const args = [
      "--url",
      rig.server.base,
      "--project",
      "wb-kill",
      "--state",
      join(rig.work, "wb-kill.json"),
      "--write-back",
      "--credit-by-app",
      "--switch-time",
      "0",
    ];
    const conn = await rig.maria.root("wb_kill");
    // Kill once the run has written something more, at a random moment after that (or before, some of the time).
    const kills = await killAgainAndAgain(args, env, conn, { seed: 35, kills: 20, waitShare: 0.7, jitterMs: 150 });
    await conn.end();
    expect(kills).toBe(20);
    const last = startBridgeCli(args, env);
    expect(await last.exited, last.stderr()).toBe(0);
    const granted = new Map(boinc.expected.results.map((r) => [r.id, r.granted_credit]));
    expect(await columnMismatches("wb_kill", boinc.ops, granted, boinc.expected)).toEqual([]);
  });
});
