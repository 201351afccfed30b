/**
 * Fixed and post-assigned credit through the bridge (issue 50, items 1, 2, 4): a BOINC database
 * whose validators run with --credit_from_wu (app `fixie`) and --post_assigned_credit (app
 * `posta`), --max_granted_credit 40, its rows as BOINC's validator leaves them without
 * --no_credit (results reported before the switch point T) and with it (from T on). Read-only,
 * the service grants every result what BOINC granted (or, under --no_credit, computed); with
 * --write-back, every credit column equals what BOINC's validator granting the same results
 * would have written (worked out below by hand, BOINC's update_average written out in
 * write-back-check.ts), once, however often the bridge is killed. The modes come from
 * config.xml's validator command lines, --credit-mode overrides them, and a project with one
 * app each on adaptive, runtime, fixed, post_assigned and trickle (a trickle_credit daemon in
 * config.xml, its message paid and marked handled) switches over in one run.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import { daemonCommandLines } from "../../bridge/database/config-xml";
import { BridgeError } from "../../bridge/shared/errors";
import { modesFromConfig } from "../../bridge/database/credit-modes";
import { type BridgeOptions, bridgeOptions, runBridge } from "../../bridge/running/run";
import { send } from "../support/send";
import { createBoincDb } from "./boinc-fixture";
import { killAgainAndAgain, startBridgeCli } from "./bridge-cli";
import { sqlTime } from "./load-trace";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProjectTokens } from "./service";
import { boincUpdateAverage, checker, holderMismatches, writerDsn } from "./write-back-check";

const ADMIN = "bridge-fixed-post-admin-token";
const available = suiteNeeds("fixed and post-assigned credit through the bridge", import.meta.url, "mariadb-server", mariadbAvailable());
/** The switch point: results reported before it were granted by BOINC, from it on validated with --no_credit. */
const T = 1_700_000_000;
/** The validators' --max_granted_credit. */
const CAP = 40;
/** BOINC's COBBLESTONE_SCALE: credit per FLOP (200 per day of a 1 GFLOPS machine). */
const COBBLESTONE_SCALE = 200 / 86400e9;

/** Hosts 7 (user 3, team 5) and 8 (user 4, no team). */
const HOST_USER = new Map([
  [7, 3],
  [8, 4],
]);
const USER_TEAM = new Map([
  [3, 5],
  [4, 0],
]);

interface Job {
  id: number;
  host: number;
  valid: boolean;
  /** Validated this many seconds after its workunit's first results (a late result). */
  late?: number;
}
interface Wu {
  id: number;
  app: number;
  /** Fixed: create_work --credit; post-assigned: what the validator's init_result() set as the canonical result's claimed_credit. */
  stated: number;
  before: boolean;
  jobs: Job[];
  /** runtime app: the results' elapsed time. */
  elapsed?: number;
}

/** App ids: 1 fixie (fixed), 2 posta (post_assigned); in the four-mode project also 3 creditnew (adaptive), 4 runner (runtime). */
const APPS = ["fixie", "posta", "creditnew", "runner"];

/**
 * The workunits, `copy` times over (ids and times shifted per copy): for each app one before T
 * (BOINC granted) and the rest from T on (--no_credit): two valid results, a credit over the cap,
 * an invalid result, a workunit with no credit (BOINC: "credit not specified in WU", "post-assigned
 * credit missing": 0), a late result.
 */
function workunits(copies: number, apps = [1, 2]): Wu[] {
  const out: Wu[] = [];
  for (let k = 0; k < copies; k++) {
    const w = (id: number, app: number, stated: number, before: boolean, jobs: Job[], elapsed?: number) =>
      out.push({
        id: id + 100 * k,
        app,
        stated,
        before,
        jobs: jobs.map((j) => ({ ...j, id: j.id + 1000 * k })),
        ...(elapsed ? { elapsed } : {}),
      });
    if (apps.includes(1)) {
      w(1, 1, 12.5, true, [
        { id: 1, host: 7, valid: true },
        { id: 2, host: 8, valid: true },
      ]);
      w(2, 1, 55, true, [
        { id: 3, host: 7, valid: true },
        { id: 4, host: 8, valid: false },
      ]);
      w(3, 1, 12.5, false, [{ id: 5, host: 8, valid: true }]);
      w(4, 1, 55, false, [
        { id: 6, host: 7, valid: true },
        { id: 7, host: 8, valid: true },
      ]);
      w(5, 1, 0, false, [{ id: 8, host: 7, valid: true }]);
      w(6, 1, 12.5, false, [
        { id: 9, host: 7, valid: true },
        { id: 10, host: 8, valid: true, late: 7 },
      ]);
    }
    if (apps.includes(2)) {
      w(11, 2, 7.25, true, [
        { id: 21, host: 7, valid: true },
        { id: 22, host: 8, valid: true },
      ]);
      w(12, 2, 123, true, [{ id: 23, host: 8, valid: true }]);
      w(13, 2, 7.25, false, [
        { id: 24, host: 7, valid: true },
        { id: 25, host: 8, valid: false },
      ]);
      w(14, 2, 123, false, [{ id: 26, host: 8, valid: true }]);
      w(15, 2, 0, false, [{ id: 27, host: 7, valid: true }]);
      w(16, 2, 3.5, false, [
        { id: 28, host: 7, valid: true },
        { id: 29, host: 8, valid: true, late: 7 },
      ]);
    }
    if (apps.includes(3)) {
      w(31, 3, 0, false, [
        { id: 31, host: 7, valid: true },
        { id: 32, host: 8, valid: true },
      ]);
      w(32, 3, 0, false, [{ id: 33, host: 8, valid: true }]);
    }
    if (apps.includes(4)) {
      w(41, 4, 0, false, [{ id: 41, host: 7, valid: true }], 1000);
      w(42, 4, 0, false, [{ id: 42, host: 8, valid: true }], 1500);
    }
  }
  return out;
}

/** When a workunit was validated (its results' mod_time), from its place in the list: before T, or from T + 10 on. */
function validatedAt(wus: Wu[]): Map<number, number> {
  const at = new Map<number, number>();
  let before = T - 400;
  let after = T + 10;
  for (const w of wus) at.set(w.id, w.before ? (before += 2) : (after += 2));
  return at;
}

const SENT = T - 5000;
/** Every result's flops_estimate (runner's credit: 1e10 × elapsed × COBBLESTONE_SCALE). */
const FLOPS = 1e10;
const RSC_FPOPS_BOUND = 1e14;

/** What BOINC's validator grants a valid result of `w` (the credit capped at --max_granted_credit); runtime by hand; adaptive: null (the service's). */
function boincCredit(w: Wu): number | null {
  if (w.app === 1 || w.app === 2) return Math.min(w.stated, CAP);
  // --credit_from_runtime, one result: its flops × elapsed (under twice the bound) × COBBLESTONE_SCALE; over the cap it would count not at all.
  if (w.app === 4) {
    const c = FLOPS * w.elapsed! * COBBLESTONE_SCALE;
    return c > 0 && c <= CAP ? c : 0;
  }
  return null;
}

interface Acc {
  total: number;
  avg: number;
  time: number;
  njobs: number;
}

/**
 * What BOINC's validator granting every valid result writes (grant_credit, grant_credit_by_app):
 * grants in the bridge's order (seconds, workunits by id, results by id), at the second validated;
 * the host, its owner (host.userid), that user's team; per app the result's own user and team.
 * `credit`: result id → credit (adaptive results: the service's). `only`: grant these results only.
 */
function boincColumns(wus: Wu[], credit: Map<number, number>, only: (w: Wu) => boolean = () => true) {
  const at = validatedAt(wus);
  const grants: { time: number; wu: Wu; job: Job }[] = [];
  for (const w of wus) for (const j of w.jobs) if (j.valid && only(w)) grants.push({ time: at.get(w.id)! + (j.late ?? 0), wu: w, job: j });
  grants.sort((a, b) => a.time - b.time || a.wu.id - b.wu.id || a.job.id - b.job.id);
  const holders = { host: new Map<number, Acc>(), user: new Map<number, Acc>(), team: new Map<number, Acc>() };
  const creditUser = new Map<string, Acc>();
  const creditTeam = new Map<string, Acc>();
  const zero = (time: number): Acc => ({ total: 0, avg: 0, time, njobs: 0 });
  const add = (a: Acc, now: number, c: number) => {
    [a.avg, a.time] = boincUpdateAverage(now, SENT, c, a.avg, a.time);
    a.total += c;
    a.njobs++;
    return a;
  };
  const results = new Map<number, number>();
  const wuCredit = new Map<number, number>();
  for (const { time, wu, job } of grants) {
    const c = credit.get(job.id)!;
    results.set(job.id, c);
    wuCredit.set(wu.id, c);
    const user = HOST_USER.get(job.host)!;
    const team = USER_TEAM.get(user)!;
    holders.host.set(job.host, add(holders.host.get(job.host) ?? zero(0), time, c));
    holders.user.set(user, add(holders.user.get(user) ?? zero(0), time, c));
    if (team) holders.team.set(team, add(holders.team.get(team) ?? zero(0), time, c));
    // A new per-app row starts with its clock at the grant (BOINC inserts it with expavg_time = now).
    creditUser.set(`${user}/${wu.app}`, add(creditUser.get(`${user}/${wu.app}`) ?? zero(time), time, c));
    creditTeam.set(`${team}/${wu.app}`, add(creditTeam.get(`${team}/${wu.app}`) ?? zero(time), time, c));
  }
  return { results, wuCredit, holders, creditUser, creditTeam };
}

/** Every valid result's credit, by hand (adaptive ones from `service`). */
function creditsOf(wus: Wu[], service = new Map<number, number>()): Map<number, number> {
  const out = new Map<number, number>();
  for (const w of wus) for (const j of w.jobs) if (j.valid) out.set(j.id, boincCredit(w) ?? service.get(j.id)!);
  return out;
}

describe.skipIf(!available)("fixed and post-assigned credit through the bridge", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-fixed-post-", standIn: true });

  /**
   * The database as BOINC's validators leave it: results reported before T granted (result,
   * workunit, and BOINC's own writes to host, user, team, credit_user, credit_team), the rest
   * validated with --no_credit (granted 0; workunit.canonical_credit = the capped credit, the
   * canonical result's claimed_credit never written: BOINC's validator keeps it in memory).
   * `noCredit`: every workunit as --no_credit leaves it.
   */
  async function boincDb(name: string, wus: Wu[], noCredit = false) {
    const dsn = await createBoincDb(rig.maria, name);
    const conn = await rig.maria.root(name);
    const apps = [...new Set(wus.map((w) => w.app))].sort();
    await conn.query(`SET time_zone = '+00:00';
      INSERT INTO platform (id, name) VALUES (1, 'x86_64-pc-linux-gnu');
      INSERT INTO team (id, create_time, name) VALUES (5, ${T - 9000}, 'Team five');
      INSERT INTO user (id, create_time, teamid, name, email_addr, cross_project_id) VALUES
        (3, ${T - 9000}, 5, 'Ada', 'ada@example.org', 'abc'), (4, ${T - 9000}, 0, 'Bob', 'bob@example.org', 'def');
      INSERT INTO host (id, create_time, userid, host_cpid) VALUES (7, ${T - 9000}, 3, 'h7'), (8, ${T - 9000}, 4, 'h8');`);
    for (const a of apps) {
      await conn.query("INSERT INTO app (id, name) VALUES (?, ?)", [a, APPS[a - 1]]);
      await conn.query("INSERT INTO app_version (id, appid, version_num, platformid, plan_class) VALUES (?, ?, 100, 1, '')", [a, a]);
    }
    const at = validatedAt(wus);
    const granted = (w: Wu) => w.before && !noCredit;
    for (const w of wus) {
      const credit = boincCredit(w) ?? 0;
      const canonical = w.jobs.find((j) => j.valid)!.id;
      await conn.query(
        "INSERT INTO workunit (id, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults, canonical_resultid, canonical_credit) VALUES (?, ?, ?, 1e13, ?, ?, ?, ?)",
        [w.id, w.app, `wu${w.id}`, RSC_FPOPS_BOUND, w.jobs.length, canonical, credit],
      );
      for (const j of w.jobs) {
        await conn.query("INSERT INTO result SET ?", [
          {
            id: j.id,
            workunitid: w.id,
            appid: w.app,
            outcome: OUTCOME.success,
            hostid: j.host,
            userid: HOST_USER.get(j.host),
            teamid: USER_TEAM.get(HOST_USER.get(j.host)!),
            sent_time: SENT,
            received_time: w.before ? T - 600 : T + 5,
            cpu_time: 900,
            validate_state: j.valid ? VALIDATE_STATE.valid : VALIDATE_STATE.invalid,
            granted_credit: j.valid && granted(w) ? credit : 0,
            claimed_credit: 0,
            elapsed_time: w.elapsed ?? 1000,
            flops_estimate: FLOPS,
            app_version_id: w.app,
            mod_time: sqlTime(at.get(w.id)! + (j.late ?? 0)),
          },
        ]);
      }
    }
    // BOINC's own grants before T, to host, user, team and the per-app rows.
    const before = boincColumns(wus, creditsOf(wus), granted);
    for (const [table, map] of [
      ["host", before.holders.host],
      ["user", before.holders.user],
      ["team", before.holders.team],
    ] as const) {
      for (const [id, a] of map)
        await conn.query(`UPDATE ${table} SET total_credit = ?, expavg_credit = ?, expavg_time = ? WHERE id = ?`, [
          a.total,
          a.avg,
          a.time,
          id,
        ]);
    }
    for (const [table, holder, map] of [
      ["credit_user", "userid", before.creditUser],
      ["credit_team", "teamid", before.creditTeam],
    ] as const) {
      for (const [key, a] of map) {
        const [id, app] = key.split("/").map(Number);
        await conn.query(
          `INSERT INTO ${table} (${holder}, appid, njobs, total, expavg, expavg_time, credit_type) VALUES (?, ?, ?, ?, ?, ?, 0)`,
          [id, app, a.njobs, a.total, a.avg, a.time],
        );
      }
    }
    await conn.end();
    return { reader: dsn, writer: await writerDsn(rig.maria, name) };
  }

  /** config.xml of such a project: each app's validator with its credit options, --max_granted_credit 40, <credit_by_app/>. */
  const configXml = (name: string, noCredit: boolean, extra = "") => {
    const nc = noCredit ? " --no_credit" : "";
    return `<boinc><config><db_name>${name}</db_name><credit_by_app/></config><daemons>
      <daemon><cmd>sample_bitwise_validator --app fixie --credit_from_wu --max_granted_credit ${CAP}${nc}</cmd></daemon>
      <daemon><cmd>posta_validator -app posta --post_assigned_credit -max_granted_credit ${CAP}${nc}</cmd></daemon>
      <daemon><cmd>sample_trivial_validator --app creditnew${nc}</cmd></daemon>
      <daemon><cmd>sample_trivial_validator --app runner --credit_from_runtime --max_granted_credit ${CAP}${nc}</cmd></daemon>
      <daemon><cmd>sample_assimilator --app fixie</cmd></daemon>${extra}
    </daemons></boinc>`;
  };

  const options = (dsn: string, slug: string, token: string, extra: Partial<BridgeOptions> = {}): BridgeOptions => {
    const xml = configXml("x", true);
    return bridgeOptions(
      { db: dsn, url: rig.server.base, project: slug, token, stateFile: join(rig.work, `${slug}.state.json`) },
      {
        log: () => undefined,
        validatorCaps: { byApp: new Map(APPS.map((a) => [a, CAP])), fallback: 7.3e7 },
        creditModes: { config: modesFromConfig(daemonCommandLines(xml)), overrides: new Map() },
        ...extra,
      },
    );
  };

  /** The service's grant of every result of a --compare CSV. */
  const compared = async (csv: string) =>
    new Map(
      (await readFile(csv, "utf8"))
        .trim()
        .split("\n")
        .slice(1)
        .map((line) => line.split(","))
        .map(([id, , , , cobblestone]) => [Number(id), Number(cobblestone)] as [number, number]),
    );

  /** Every credit column of database `name` against `want` (boincColumns). */
  async function columnMismatches(name: string, want: ReturnType<typeof boincColumns>) {
    const conn = await rig.maria.root(name);
    const rows = async <R>(sql: string) => (await conn.query(sql))[0] as R[];
    const { mismatches, check } = checker();
    for (const r of await rows<{ id: number; granted_credit: number }>("SELECT id, granted_credit FROM result"))
      check(`result ${r.id} granted_credit`, r.granted_credit, want.results.get(r.id) ?? 0);
    for (const w of await rows<{ id: number; canonical_credit: number }>("SELECT id, canonical_credit FROM workunit"))
      if (want.wuCredit.has(w.id)) check(`workunit ${w.id} canonical_credit`, w.canonical_credit, want.wuCredit.get(w.id)!);
    await holderMismatches(conn, want, { mismatches, check });
    await conn.end();
    return mismatches;
  }

  it("hand check of the expected numbers: the caps, the missing credit, a late result, host 8's average after its first two grants", () => {
    const wus = workunits(1);
    const credit = creditsOf(wus);
    // fixie: 12.5; 55 capped at 40; no credit in the workunit: 0. posta: 7.25; 123 capped at 40; missing: 0.
    expect([2, 3, 6, 7, 8, 10].map((id) => credit.get(id))).toEqual([12.5, 40, 40, 40, 0, 12.5]);
    expect([21, 23, 26, 27, 29].map((id) => credit.get(id))).toEqual([7.25, 40, 40, 0, 3.5]);
    // Host 8's first grants: result 2 of workunit 1 (12.5) at T - 398, result 22 of workunit 11 (7.25) at T - 394.
    const { holders } = boincColumns(wus, credit, (w) => w.id === 1 || w.id === 11);
    const first = 12.5 / ((T - 398 - SENT) / 86400); // no average yet: the credit over the days since the work was sent
    const w = Math.exp((-4 * Math.LN2) / (7 * 86400)); // 4 s later: decay by 2^(-4 s / 7 days) …
    const second = first * w + (1 - w) * (7.25 / (4 / 86400)); // … and add the credit spread over the 4 s gap
    expect(Math.abs(holders.host.get(8)!.avg - second) / second).toBeLessThan(1e-12);
    expect(holders.host.get(8)!.total).toBe(19.75);
    expect(holders.host.get(8)!.time).toBe(T - 394);
  });

  for (const noCredit of [false, true]) {
    const how = noCredit ? "every result validated with --no_credit" : "BOINC granted before T, --no_credit from T on";
    it(`read-only (${how}): every credit the service grants is what BOINC granted or computed, to 1e-9`, async () => {
      const name = `ro_${noCredit ? "nc" : "granted"}`;
      const wus = workunits(1);
      const db = await boincDb(name, wus, noCredit);
      const slug = `ro-${noCredit ? "nc" : "granted"}`;
      // The project's manage token: the run sets each app's mode on the service (an ingest token may not).
      const { manage: token } = await createProjectTokens(rig.server.base, ADMIN, slug);
      const csv = join(rig.work, `${slug}.csv`);
      const lines: string[] = [];
      await runBridge(options(db.reader, slug, token, { compare: csv, log: (l) => lines.push(l) }));
      const service = await compared(csv);
      const want = creditsOf(wus);
      const { mismatches, check } = checker();
      expect(service.size).toBe(wus.reduce((n, w) => n + w.jobs.length, 0));
      for (const [id, c] of want) check(`result ${id}`, service.get(id), c);
      for (const w of wus) for (const j of w.jobs) if (!j.valid) check(`invalid result ${j.id}`, service.get(j.id), 0);
      expect(mismatches).toEqual([]);
      // The two workunits without credit are told, as BOINC's validator logs them.
      expect(lines.filter((l) => /has no credit: its canonical_credit is 0/.test(l))).toEqual([
        expect.stringMatching(/^workunit 5 \(app 'fixie', credit mode fixed\)/),
        expect.stringMatching(/^workunit 15 \(app 'posta', credit mode post_assigned\)/),
      ]);
      // The service has each app on the mode config.xml gave it.
      const { apps } = await send(rig.server.base, "GET", `/v1/projects/${slug}/apps`, token);
      expect(new Map(apps.map((a: { name: string; credit_mode: string }) => [a.name, a.credit_mode]))).toEqual(
        new Map([
          ["fixie", "fixed"],
          ["posta", "post_assigned"],
        ]),
      );
    });
  }

  it("a valid result whose workunit the validator has not written yet is not posted: the run stops (transient), the next one posts it", async () => {
    const wus = workunits(1);
    const db = await boincDb("mid_write", wus, true);
    const conn = await rig.maria.root("mid_write");
    // Between the validator's write of results 24 and 25 and its write of workunit 13 (post-assigned 7.25).
    await conn.query("UPDATE workunit SET canonical_resultid = 0, canonical_credit = 0, mod_time = mod_time WHERE id = 13");
    const { manage: token } = await createProjectTokens(rig.server.base, ADMIN, "mid-write");
    const first = await runBridge(options(db.reader, "mid-write", token)).then(
      () => null,
      (e: unknown) => e as BridgeError,
    );
    expect(first).toBeInstanceOf(BridgeError);
    expect(first!.transient).toBe(true);
    expect(first!.message).toMatch(/^result 24 is valid but its workunit 13 has no canonical result yet/);
    // The validator finishes; the next run posts it with its credit.
    await conn.query("UPDATE workunit SET canonical_resultid = 24, canonical_credit = 7.25, mod_time = mod_time WHERE id = 13");
    await conn.end();
    const csv = join(rig.work, "mid-write.csv");
    await runBridge(options(db.reader, "mid-write", token, { compare: csv }));
    expect((await compared(csv)).get(24)).toBe(7.25);
  });

  for (const noCredit of [false, true]) {
    const how = noCredit ? "every result validated with --no_credit" : "BOINC granted before T, --no_credit from T on";
    it(`--write-back (${how}): every credit column as BOINC's validator would have written it`, async () => {
      const name = `wb_${noCredit ? "nc" : "granted"}`;
      const wus = workunits(1);
      const db = await boincDb(name, wus, noCredit);
      const slug = `wb-${noCredit ? "nc" : "granted"}`;
      const { manage: token } = await createProjectTokens(rig.server.base, ADMIN, slug);
      const report = await runBridge(options(db.writer, slug, token, { writeBack: true, creditByApp: true, switchTime: T }));
      const written = wus.filter((w) => noCredit || !w.before).reduce((n, w) => n + w.jobs.filter((j) => j.valid).length, 0);
      expect(report.write_back).toMatchObject({ written, skipped: 0, missing_holders: 0 });
      expect(await columnMismatches(name, boincColumns(wus, creditsOf(wus)))).toEqual([]);
      // Again: nothing new, nothing twice.
      const again = await runBridge(options(db.writer, slug, token, { writeBack: true, creditByApp: true }));
      expect(again.write_back).toMatchObject({ written: 0 });
      expect(await columnMismatches(name, boincColumns(wus, creditsOf(wus)))).toEqual([]);
    });
  }

  it("--write-back through a lying service: a fixed or post-assigned credit other than the workunit's is refused, nothing written; the true answer is written", async () => {
    const name = "wb_lies";
    const wus = workunits(1);
    const db = await boincDb(name, wus, true);
    const { manage: token } = await createProjectTokens(rig.server.base, ADMIN, "wb-lies");
    const standIn = rig.standIn;
    type Answer = { passes: { workunits: { results: { validate_state: string; granted_credit: number }[] }[] }[] };
    // Every valid result answered with one credit more than the service granted where that stays within the cap of
    // 40 (a credit over the cap was refused before fixed credit was checked): not BOINC's credit.
    standIn.fault(/^POST .*\/pass-batches$/, {
      kind: "rewrite",
      rewrite: (body) => {
        for (const p of (body as Answer).passes)
          for (const w of p.workunits)
            for (const r of w.results) if (r.validate_state === "valid" && r.granted_credit + 1 <= CAP) r.granted_credit += 1;
        return body;
      },
    });
    const sums = async () => {
      const conn = await rig.maria.root(name);
      const [[row]] = (await conn.query(
        "SELECT (SELECT SUM(granted_credit) FROM result) AS results, (SELECT SUM(total_credit) FROM host) AS hosts, (SELECT SUM(total_credit) FROM user) AS users",
      )) as unknown as [Record<string, number>[]];
      await conn.end();
      return row;
    };
    const before = await sums();
    try {
      const run = () =>
        runBridge({ ...options(db.writer, "wb-lies", token, { writeBack: true, creditByApp: true, switchTime: T }), url: standIn.base });
      const e = await run().then(
        () => null,
        (e: unknown) => e as BridgeError,
      );
      expect(e).toBeInstanceOf(BridgeError);
      // Workunit 1 (fixie, 12.5) is answered 13.5; workunit 11 (posta, 7.25) 8.25.
      expect(e!.message).toContain("result 2 (app fixie): granted_credit 13.5 is not the credit BOINC grants it, 12.5");
      expect(e!.message).toMatch(/result 2[12] \(app posta\): granted_credit 8\.25 is not the credit BOINC grants it, 7\.25/);
      expect(await sums()).toEqual(before);
      // The stand-in lets the service's own answers through: written as BOINC's validator would have.
      standIn.clear();
      const report = await run();
      expect(report.write_back).toMatchObject({ skipped: 0, missing_holders: 0 });
      expect(await columnMismatches(name, boincColumns(wus, creditsOf(wus)))).toEqual([]);
    } finally {
      standIn.clear();
    }
  });

  it("--write-back killed (SIGKILL) again and again, modes from config.xml: every column once, as BOINC would have", async () => {
    const name = "wb_kill";
    const wus = workunits(12);
    const db = await boincDb(name, wus);
    // The modes set once with the manage token (docs/bridge.md, "Credit modes"); the bridge runs with its ingest token.
    const { manage, ingest: token } = await createProjectTokens(rig.server.base, ADMIN, "wb-kill");
    for (const [app, mode] of [
      ["fixie", "fixed"],
      ["posta", "post_assigned"],
    ] as const)
      await send(rig.server.base, "PUT", `/v1/projects/wb-kill/apps/${app}`, manage, { credit_mode: mode });
    const config = join(rig.work, "kill-config.xml");
    await writeFile(config, configXml(name, true));
    const args = ["--url", rig.server.base, "--project", "wb-kill", "--state", join(rig.work, "wb-kill.json")].concat([
      "--boinc-config",
      config,
      "--write-back",
      "--switch-time",
      String(T),
    ]);
    const env = { COBBLESTONE_TOKEN: token, BOINC_DB_URL: db.writer };
    const conn = await rig.maria.root(name);
    // Each run killed once it has written another row, up to 100 ms later.
    const kills = await killAgainAndAgain(args, env, conn, { seed: 50, kills: 6, attempts: 12, jitterMs: 100 });
    await conn.end();
    expect(kills).toBeGreaterThan(0);
    const last = startBridgeCli(args, env);
    expect(await last.exited, last.stderr()).toBe(0);
    expect(await columnMismatches(name, boincColumns(wus, creditsOf(wus)))).toEqual([]);
  });

  it("reads each app's mode from config.xml's validators, says so, and --credit-mode overrides it; a bad override is refused", async () => {
    const name = "modes_cfg";
    const wus = workunits(1, [1, 2, 3, 4]);
    const db = await boincDb(name, wus, true);
    const { manage, ingest: token } = await createProjectTokens(rig.server.base, ADMIN, "modes-cfg");
    const config = join(rig.work, "modes-config.xml");
    await writeFile(config, configXml(name, false));
    const base = ["--url", rig.server.base, "--project", "modes-cfg", "--boinc-config", config, "--dry-run"];
    const env = { COBBLESTONE_TOKEN: token, BOINC_DB_URL: db.reader };
    const run = startBridgeCli([...base, "--log-format", "json"], env);
    expect(await run.exited, run.stderr()).toBe(0);
    const events = run
      .stderr()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.event === "credit_mode");
    expect(events.map((e) => [e.app, e.mode, e.source, e.no_credit])).toEqual([
      ["fixie", "fixed", "config.xml", false],
      ["posta", "post_assigned", "config.xml", false],
      ["creditnew", "adaptive", "config.xml", false],
      ["runner", "runtime", "config.xml", false],
    ]);
    // For real, with the bridge's ingest token: it may not change a mode, so it refuses, naming each app and the command that sets it.
    const realArgs = ["--url", rig.server.base, "--project", "modes-cfg", "--boinc-config", config, "--state", join(rig.work, "m.json")];
    const ingest = startBridgeCli(realArgs, env);
    expect(await ingest.exited).toBe(2);
    expect(ingest.stderr()).toContain(
      `app 'fixie': adaptive on the service, fixed by ${config}: sample_bitwise_validator --app fixie --credit_from_wu --max_granted_credit 40: curl -X PUT $B/v1/projects/modes-cfg/apps/fixie -H "Authorization: Bearer $MANAGE_TOKEN"`,
    );
    expect(ingest.stderr()).toMatch(/app 'runner': adaptive on the service, runtime by /);
    expect(ingest.stderr()).not.toMatch(/app 'creditnew': adaptive on the service/);
    // With the manage token the run sets them, --credit-mode first; the text log names the stated modes.
    const real = startBridgeCli([...realArgs, "--credit-mode", "posta=none"], { ...env, COBBLESTONE_TOKEN: manage });
    expect(await real.exited, real.stderr()).toBe(0);
    expect(real.stderr()).toContain(
      `app 'fixie': credit mode fixed, from ${config}: sample_bitwise_validator --app fixie --credit_from_wu`,
    );
    expect(real.stderr()).toContain("app 'posta': credit mode none, from --credit-mode");
    const { apps } = await send(rig.server.base, "GET", "/v1/projects/modes-cfg/apps", token);
    expect(Object.fromEntries(apps.map((a: { name: string; credit_mode: string }) => [a.name, a.credit_mode]))).toEqual({
      fixie: "fixed",
      posta: "none",
      creditnew: "adaptive",
      runner: "runtime",
    });
    // Now that the service agrees, the ingest token's runs go on (no mode to change).
    const agreed = startBridgeCli([...realArgs, "--credit-mode", "posta=none"], env);
    expect(await agreed.exited, agreed.stderr()).toBe(0);
    for (const [bad, message] of [
      ["nope=fixed", /--credit-mode names 'nope', not an app of this database/],
      [
        "fixie=bogus",
        /--credit-mode takes APP=MODE, MODE one of adaptive, runtime, fixed, post_assigned, none, trickle; not 'fixie=bogus'/,
      ],
    ] as const) {
      const refused = startBridgeCli([...base, "--credit-mode", bad], env);
      expect(await refused.exited).toBe(2);
      expect(refused.stderr()).toMatch(message);
    }
    // Two validators of one app that disagree are refused, naming both.
    await writeFile(config, configXml(name, false, "<daemon><cmd>sample_bitwise_validator --app fixie --mod 2 1</cmd></daemon>"));
    const split = startBridgeCli(base, env);
    expect(await split.exited).toBe(2);
    expect(split.stderr()).toMatch(/the validators of app 'fixie' grant by different credit modes \(fixed: .*; adaptive: /);
  });

  it("a project with one app each on adaptive, runtime, fixed, post_assigned and trickle switches over in one --write-back --switch-time T run", async () => {
    const name = "four_modes";
    const wus = workunits(1, [1, 2, 3, 4]);
    const db = await boincDb(name, wus);
    // The trickle app, climate: host 20 of user 20 (no team, no credit yet, a 3 GFLOPS benchmark)
    // sent one trickle-up of 3600 s an hour before T, which BOINC's handler (stopped) has not paid.
    const root = await rig.maria.root(name);
    await root.query(`INSERT INTO app (id, name) VALUES (9, 'climate');
      INSERT INTO app_version (id, appid, version_num, platformid, plan_class) VALUES (9, 9, 100, 1, '');
      INSERT INTO user (id, create_time, teamid, name, email_addr, cross_project_id) VALUES (20, ${T - 9000}, 0, 'Cy', 'cy@example.org', 'ghi');
      INSERT INTO host (id, create_time, userid, host_cpid, p_fpops) VALUES (20, ${T - 9000}, 20, 'h20', 3e9);
      INSERT INTO msg_from_host (id, create_time, hostid, variety, handled, xml) VALUES
        (1, ${T - 3600}, 20, 'climate', 0, '<result_name>climate_1_0</result_name>\n<runtime>3600</runtime>\n');`);
    const [[clock]] = (await root.query("SELECT UNIX_TIMESTAMP() AS now")) as unknown as [{ now: number }[]];
    const { manage: token } = await createProjectTokens(rig.server.base, ADMIN, "four-modes");
    const config = join(rig.work, "four-config.xml");
    await writeFile(config, configXml(name, true, "<daemon><cmd>trickle_credit -d 3 --variety climate --max_runtime 3600</cmd></daemon>"));
    const csv = join(rig.work, "four.csv");
    const run = startBridgeCli(
      ["--url", rig.server.base, "--project", "four-modes", "--state", join(rig.work, "four.json"), "--boinc-config", config].concat([
        "--write-back",
        "--switch-time",
        String(T),
        "--compare",
        csv,
      ]),
      { COBBLESTONE_TOKEN: token, BOINC_DB_URL: db.writer },
    );
    expect(await run.exited, run.stderr()).toBe(0);
    const service = await compared(csv);
    // The adaptive app's credit is the service's own (CreditNew), above 0; the others' are BOINC's by hand.
    const adaptive = wus.filter((w) => w.app === 3).flatMap((w) => w.jobs.map((j) => j.id));
    expect(adaptive.every((id) => service.get(id)! > 0)).toBe(true);
    const credit = creditsOf(wus, service);
    const { mismatches, check } = checker();
    for (const [id, c] of credit) check(`result ${id} (service)`, service.get(id), c);
    // runner: 1e10 FLOPS × 1000 s × 200/86400e9 = 23.148…; × 1500 s = 34.722…, under the cap of 40.
    check("runner's first", credit.get(41), 1e13 * (200 / 86400e9));
    check("runner's second", credit.get(42), 1.5e13 * (200 / 86400e9));
    expect(mismatches).toEqual([]);
    // Trickle: 3600 s x 3e9 FLOPS x 200 / 86400e9 = 25, granted as grant_credit(host, now - 86400, 25):
    // to a holder with no average yet, update_average gives 25 / ((now - (now - 86400)) / 86400) = 25, at now.
    const want = boincColumns(wus, credit);
    const [[after]] = (await root.query("SELECT UNIX_TIMESTAMP() AS now")) as unknown as [{ now: number }[]];
    const [[message]] = (await root.query("SELECT handled FROM msg_from_host WHERE id = 1")) as unknown as [{ handled: number }[]];
    const [[paid]] = (await root.query("SELECT expavg_time FROM host WHERE id = 20")) as unknown as [{ expavg_time: number }[]];
    await root.end();
    expect(message!.handled).not.toBe(0);
    expect(paid!.expavg_time).toBeGreaterThanOrEqual(Number(clock!.now));
    expect(paid!.expavg_time).toBeLessThanOrEqual(Number(after!.now) + 1);
    for (const kind of ["host", "user"] as const) want.holders[kind].set(20, { total: 25, avg: 25, time: paid!.expavg_time, njobs: 1 });
    expect(await columnMismatches(name, want)).toEqual([]);
  });
});
