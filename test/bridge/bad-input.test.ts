/**
 * What the bridge does with a database or a service that is not as it should be: rows the API
 * would refuse are skipped with their reason (and the rest posted), a result table without an
 * index on mod_time is warned about, an old schema or a wrong DSN, token or URL stops it with a
 * clear message before it posts anything. (That the API
 * types it is compiled against are what the service documents: test/docs/api-types.test.ts.)
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { describe, expect, it } from "vitest";
import { modTimeIndexStatement } from "../../bridge/database/boinc-db";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import { BridgeError } from "../../bridge/shared/errors";
import type { BridgeEvent } from "../../bridge/telling/event-log";
import { type BridgeOptions, bridgeOptions, runBridge } from "../../bridge/running/run";
import { freePort } from "../browser/wrangler-dev";
import { BRIDGE_USER, createBoincDb, linesBesidesIndexAdvice, smallBoincDb } from "./boinc-fixture";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject } from "./service";

const ADMIN = "bridge-bad-input-admin-token";
const T = 1_700_000_000;
const available = suiteNeeds("the bridge with bad input", import.meta.url, "mariadb-server", mariadbAvailable());

describe.skipIf(!available)("the bridge with bad input", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-bridge-bad-" });

  const options = (db: string, slug: string, token: string, extra: Partial<BridgeOptions> = {}): BridgeOptions =>
    bridgeOptions(
      { db, url: rig.server.base, project: slug, token, stateFile: join(rig.work, `${slug}.json`) },
      { log: () => undefined, retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10 }, ...extra },
    );
  const get = async (path: string, token: string) =>
    (await fetch(`${rig.server.base}${path}`, { headers: { Authorization: `Bearer ${token}` } })).json();

  const smallDb = (name: string, results: Record<string, unknown>[]) => smallBoincDb(rig.maria, name, T, results);

  it("skips what the API would refuse, with the reason, posts the rest, and leaves undecided results for later", async () => {
    const dsn = await smallDb("bad_rows", [
      {},
      { validate_state: VALIDATE_STATE.init }, // still waiting for the validator: not read
      { app_version_id: 99 },
      { elapsed_time: 0, cpu_time: 0, sent_time: 0, received_time: 0 },
      { flops_estimate: null },
      { sent_time: T, received_time: T - 1 },
      { workunitid: 4242 }, // its workunit is gone (purged): app and fpops are NULL
      { outcome: OUTCOME.clientError, validate_state: VALIDATE_STATE.init },
    ]);
    const token = await createProject(rig.server.base, ADMIN, "bad-rows");
    const lines: string[] = [];
    const report = await runBridge(options(dsn, "bad-rows", token, { events: linesBesidesIndexAdvice(lines) }));
    // 7 rows read: 2 validated results posted, 1 error outcome, 4 skipped (result 2 waits for its validator).
    expect(report).toMatchObject({ rows: 7, results: 2, error_outcomes: 1, passes: 2, errors: 1, skipped: 4 });
    expect(lines).toEqual([
      "result 3 skipped: unknown app version 99",
      "result 5 skipped: NULL flops_estimate",
      `result 6 skipped: sent_time ${T} is after received_time ${T - 1}`,
      "result 7 skipped: NULL app, rsc_fpops_est, rsc_fpops_bound, target_nresults",
    ]);
    // Results 1 and 4 were credited to host 7, registered with BOINC's create_time and the hashed cpid.
    const host = await get("/v1/projects/bad-rows/hosts/7", token);
    expect(host.total_credit).toBeGreaterThan(0);
    expect(host.create_time).toBe(T - 9000);
    // md5(host_cpid + owner's email) = md5("hostcpid" + "ada@example.org"), as BOINC's db_dump exports it.
    expect(host.host_cpid).toBe("999f6899346e85d4111cf25adaafd78f");
    const user = await get("/v1/projects/bad-rows/users/3", token);
    expect(user).toMatchObject({ name: "Ada", team_id: 5 });
    // md5(cross_project_id + email) = md5("abc" + "ada@example.org"): the email itself never leaves the database.
    expect(user.cpid).toBe("01815a9cef3705b5beb1213b82ca9853");
  });

  it("--dry-run reads everything and posts nothing", async () => {
    const dsn = await smallDb("dry", [{}, {}, { outcome: OUTCOME.clientError, validate_state: VALIDATE_STATE.init }]);
    const token = await createProject(rig.server.base, ADMIN, "dry");
    const report = await runBridge(options(dsn, "dry", token, { dryRun: true }));
    expect(report).toMatchObject({ rows: 3, results: 2, error_outcomes: 1, passes: 2, errors: 1 });
    expect((await get("/v1/projects/dry/apps", token)).apps).toEqual([]);
    await expect(readFile(join(rig.work, "dry.json"))).rejects.toThrow(/ENOENT/);
  });

  it("an old schema without result.flops_estimate, or a missing table, is named and nothing is posted", async () => {
    const dsn = await createBoincDb(rig.maria, "old_schema");
    const conn = await rig.maria.root("old_schema");
    await conn.query("ALTER TABLE result DROP COLUMN flops_estimate; DROP TABLE team");
    await conn.end();
    const token = await createProject(rig.server.base, ADMIN, "old");
    const failure = await runBridge(options(dsn, "old", token)).catch((e) => e);
    expect(failure).toBeInstanceOf(BridgeError);
    expect(failure.message).toContain("table 'team' is missing");
    expect(failure.message).toMatch(/column result\.flops_estimate is missing: .*credit system of 2010.*upgrade/);
    expect((await get("/v1/projects/old/apps", token)).apps).toEqual([]);
  });

  it("a result table without an index on mod_time is warned about at the start, with the CREATE INDEX to run; with it, not", async () => {
    const dsn = await smallDb("no_index", [{}]);
    const token = await createProject(rig.server.base, ADMIN, "no-index");
    const events: BridgeEvent[] = [];
    await runBridge(options(dsn, "no-index", token, { events: (e) => events.push(e) }));
    const statement = "CREATE INDEX res_mod_time ON no_index.result (mod_time, id);";
    const warnings = events.filter((e) => e.event === "no_mod_time_index");
    expect(warnings).toEqual([
      {
        level: "warn",
        event: "no_mod_time_index",
        msg: `the result table of database 'no_index' has no index on mod_time: each read of the results after the cursor scans the whole table, which is slow on a large database. Create one where this run reads (created on the primary, it reaches the replicas too): ${statement} (docs/bridge.md, step 3 of the checklist)`,
        fields: { database: "no_index", statement },
      },
    ]);
    // Told at the start, before the run starts reading.
    expect(events.findIndex((e) => e.event === "no_mod_time_index")).toBeLessThan(events.findIndex((e) => e.event === "start"));
    // The statement it names, run as it stands, is what it looks for.
    const conn = await rig.maria.root("no_index");
    await conn.query(statement);
    await conn.end();
    events.length = 0;
    await runBridge(options(dsn, "no-index", token, { events: (e) => events.push(e) }));
    expect(events.map((e) => e.event)).not.toContain("no_mod_time_index");
    // Any index that starts with mod_time will do; one where mod_time comes second does not.
    const other = await smallDb("index_second", [{}]);
    const root = await rig.maria.root("index_second");
    await root.query("CREATE INDEX res_id_mod_time ON result (id, mod_time)");
    await root.end();
    events.length = 0;
    await runBridge(options(other, "no-index", token, { dryRun: true, events: (e) => events.push(e) }));
    expect(events.filter((e) => e.event === "no_mod_time_index")).toHaveLength(1);
    expect(modTimeIndexStatement("boinc-db")).toBe("CREATE INDEX res_mod_time ON `boinc-db`.result (mod_time, id);");
  });

  it("a wrong DSN says what is wrong without printing the password", async () => {
    const dsn = await createBoincDb(rig.maria, "dsn_checks");
    const token = await createProject(rig.server.base, ADMIN, "dsn");
    const fails = async (db: string) => {
      const e = await runBridge(options(db, "dsn", token)).catch((x) => x);
      expect(e).toBeInstanceOf(BridgeError);
      expect(e.message).not.toContain(BRIDGE_USER.password);
      expect(e.message).not.toContain(encodeURIComponent(BRIDGE_USER.password));
      return e.message as string;
    };
    expect(await fails("not a url")).toMatch(/--db must be a URL like mysql:\/\/.*; percent-encode the whole password/);
    expect(await fails(dsn.replace("mysql:", "postgres:"))).toMatch(/must start with mysql:\/\//);
    expect(await fails(dsn.replace(encodeURIComponent(BRIDGE_USER.password), "wrong"))).toMatch(/user name or password was refused/);
    expect(await fails(dsn.replace(/:\d+\//, ":1/"))).toMatch(/nothing listens there/);
    expect(await fails(dsn.replace("/dsn_checks", "/no_such_db"))).toMatch(/may not read that database|no database of that name/);
  });

  it("a bad token, a wrong project and a service that is down stop it with a clear message", async () => {
    const dsn = await smallDb("service_checks", [{}]);
    const token = await createProject(rig.server.base, ADMIN, "svc");
    expect((await runBridge(options(dsn, "svc", "not-the-token")).catch((e) => e)).message).toMatch(
      /refused the token .*check --token or COBBLESTONE_TOKEN/,
    );
    expect((await runBridge(options(dsn, "no-such-project", token)).catch((e) => e)).message).toMatch(
      /refused the token|is --project right/,
    );
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const down = await runBridge(options(dsn, "svc", token, { url: nobody })).catch((e) => e);
    expect(down).toBeInstanceOf(BridgeError);
    expect(down.message).toBe(`cannot reach the service at ${nobody} (ECONNREFUSED); is --url right and the service up?`);
  });
});
