/**
 * A new project admin's first afternoon with the bridge (issue 27), against a real MariaDB and
 * a real `wrangler dev`: every job run between creating the project and the first backfill,
 * overlapping runs, a wrong --url, a --url with a trailing slash, Ctrl-C, a --dry-run that
 * checks the service, a refusal that names the BOINC ids, and the database's own clock.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { BridgeError } from "../../bridge/shared/errors";
import { lockState } from "../../bridge/running/lock";
import { type BridgeOptions, bridgeOptions, runBridge } from "../../bridge/running/run";
import { freePort } from "../browser/wrangler-dev";
import { boincDbWithTrace, linesBesidesIndexAdvice, smallBoincDb } from "./boinc-fixture";
import { sqlTime } from "./load-trace";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject, traceMismatches } from "./service";

const ADMIN = "bridge-onboarding-admin-token";
const ROOT = new URL("../..", import.meta.url).pathname;
const T = 1_700_000_000;
const available = suiteNeeds("a project admin's first backfill", import.meta.url, "mariadb-server", mariadbAvailable());

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run bridge -- …` as an admin runs it: its own process, secrets from the environment. */
function cli(args: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<Exit> } {
  const child = spawn("node", ["--import", "tsx", "bridge/cli.ts", "--no-progress", ...args], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const done = new Promise<Exit>((r) => child.once("exit", (code) => r({ code, stdout, stderr })));
  return { child, done };
}

describe.skipIf(!available)("a project admin's first backfill", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-onboarding-" });
  let boinc: Awaited<ReturnType<typeof boincDbWithTrace>>;

  beforeAll(async () => {
    boinc = await boincDbWithTrace(rig.maria, "onboard11", "bridge-11");
  });

  const options = (db: string, slug: string, token: string, extra: Partial<BridgeOptions> = {}): BridgeOptions =>
    bridgeOptions(
      { db, url: rig.server.base, project: slug, token, stateFile: join(rig.work, `${slug}.json`) },
      { log: () => undefined, ...extra },
    );

  it("every cron job run between creating the project and the first bridge run: the backfill of old history goes through", async () => {
    const token = await createProject(rig.server.base, ADMIN, "jobs-first");
    // The docs' "run every job once", twice, as an admin preparing a replica for an hour would see the hourly job.
    for (let i = 0; i < 2; i++) expect(await (await fetch(`${rig.server.base}/cdn-cgi/handler/scheduled`)).text()).toBe("ok");
    const report = await runBridge(options(boinc.dsn, "jobs-first", token));
    expect(report).toMatchObject({ passes: 80, skipped: 0, replayed: 0 });
    expect(await traceMismatches(rig.server.base, "jobs-first", token, boinc.expected, boinc.appNumbers)).toEqual([]);
  });

  it("Ctrl-C stops after the request in flight, says where, exits 130, and the next run resumes to the same numbers", async () => {
    const token = await createProject(rig.server.base, ADMIN, "ctrl-c");
    const state = join(rig.work, "ctrl-c.json");
    const args = ["--url", `${rig.server.base}/`, "--project", "ctrl-c", "--state", state];
    const run = cli(args, { COBBLESTONE_TOKEN: token, BOINC_DB_URL: boinc.dsn });
    // Once the first answered second is saved, interrupt.
    while ((await readFile(state, "utf8").catch(() => null)) === null) {
      if (run.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    run.child.kill("SIGINT");
    const exit = await run.done;
    expect(exit.code).toBe(130);
    const saved = JSON.parse(await readFile(state, "utf8")).cursor.mod_time as number;
    expect(exit.stderr).toContain(
      `interrupted; everything up to ${new Date(saved * 1000).toISOString()} (mod_time ${saved}) is posted and saved in ${state}; run the same command again to resume`,
    );
    expect(exit.stderr).not.toMatch(/\n\s+at /); // no stack trace
    // The same command (the URL spelled without the slash this time: the same service) finishes the job.
    const rest = cli(["--url", rig.server.base, "--project", "ctrl-c", "--state", state], {
      COBBLESTONE_TOKEN: token,
      BOINC_DB_URL: boinc.dsn,
    });
    const done = await rest.done;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/^posted \d+ validated results/);
    expect(await traceMismatches(rig.server.base, "ctrl-c", token, boinc.expected, boinc.appNumbers)).toEqual([]);
  });

  it("a second run on the same state file exits 76 with one line, and the lock goes with the run", async () => {
    const dsn = await smallBoincDb(rig.maria, "overlap", T, [{}]);
    const token = await createProject(rig.server.base, ADMIN, "overlap");
    const state = join(rig.work, "overlap.json");
    const held = await lockState(state); // a long run in progress
    const second = await cli(["--url", rig.server.base, "--project", "overlap", "--state", state], {
      COBBLESTONE_TOKEN: token,
      BOINC_DB_URL: dsn,
    }).done;
    expect(second.code).toBe(76);
    expect(second.stderr.trim().split("\n")).toEqual([
      `bridge: another bridge run (pid ${process.pid}) is using ${state}; this one exits (a run every minute overlaps a long one: that is fine)`,
    ]);
    await held.release();
    const report = await runBridge(options(dsn, "overlap", token, { stateFile: state }));
    expect(report.results).toBe(1);
    await expect(readFile(`${state}.lock`)).rejects.toThrow(/ENOENT/);
  });

  it("a wrong --url fails at once, naming it; a service answering 503 is retried with each retry on stderr", async () => {
    const dsn = await smallBoincDb(rig.maria, "wrong_url", T, [{}, {}]);
    const token = await createProject(rig.server.base, ADMIN, "wrong-url");
    const started = Date.now();
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const refused = await runBridge(options(dsn, "wrong-url", token, { url: nobody })).catch((e) => e);
    expect(refused).toBeInstanceOf(BridgeError);
    expect(refused.message).toBe(`cannot reach the service at ${nobody} (ECONNREFUSED); is --url right and the service up?`);
    expect(Date.now() - started).toBeLessThan(30_000); // no back-off: it was minutes of silence
    // A proxy that answers the first pass request 503 (Retry-After: 0), then passes everything on.
    let refusedOnce = false;
    const proxy = createServer(async (req, res) => {
      if (req.url?.endsWith("/pass-batches") && !refusedOnce) {
        refusedOnce = true;
        res.writeHead(503, { "retry-after": "0", "content-type": "application/json" });
        res.end(JSON.stringify({ error: { code: "unavailable", message: "try again" } }));
        return;
      }
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const upstream = await fetch(`${rig.server.base}${req.url}`, {
        method: req.method,
        headers: { authorization: req.headers.authorization ?? "", "content-type": "application/json" },
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      res.writeHead(upstream.status, { "content-type": "application/json" });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const lines: string[] = [];
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const report = await runBridge(options(dsn, "wrong-url", token, { url, events: linesBesidesIndexAdvice(lines), retry: undefined }));
      expect(report).toMatchObject({ results: 2, passes: 2, requests: 1 });
    } finally {
      proxy.close();
    }
    // The retry names the request as its failure would (api-client.ts): the seconds it carries.
    expect(lines).toEqual([`POST 2 passes at ${T}…${T + 1}: 503; retrying in 0.0 s (attempt 2 of 12)`]);
  });

  it("counts what happened: a second backfill into the same project posts results the service already had, and says so", async () => {
    const dsn = await smallBoincDb(rig.maria, "counts", T, [{}, {}, { app_version_id: 2 }]);
    const token = await createProject(rig.server.base, ADMIN, "counts");
    const lines: string[] = [];
    const first = await runBridge(options(dsn, "counts", token, { events: linesBesidesIndexAdvice(lines) }));
    // Result 3 names version 2 of app beta on a workunit of app alpha: skipped, not a refusal stopping every later run.
    expect(first).toMatchObject({ rows: 3, results: 2, replayed: 0, skipped: 1, passes: 2, requests: 1 });
    expect(lines).toEqual(["result 3 skipped: app version 2 is of app 'beta', not of workunit 3's app 'alpha'"]);
    const again = await runBridge(options(dsn, "counts", token, { stateFile: join(rig.work, "counts-again.json") }));
    expect(again).toMatchObject({ rows: 3, results: 2, replayed: 2, skipped: 1 });
  });

  it("a refusal names the BOINC workunit and result, not only a path into the request", async () => {
    const dsn = await smallBoincDb(rig.maria, "refusal", T, [{}, {}]);
    const token = await createProject(rig.server.base, ADMIN, "refusal");
    // Result 2 was posted to the service before, with other content (another elapsed time).
    await runBridge(options(dsn, "refusal", token, { stateFile: join(rig.work, "refusal-first.json") }));
    const conn = await rig.maria.root("refusal");
    // (mod_time kept: BOINC's auto-update would move the row to now.)
    await conn.query("UPDATE result SET elapsed_time = 2000, mod_time = mod_time WHERE id = 2");
    await conn.end();
    const failure = await runBridge(options(dsn, "refusal", token)).catch((e) => e);
    expect(failure).toBeInstanceOf(BridgeError);
    expect(failure.message).toContain(`pass at ${T + 1}, workunit 2, result 2 (passes[1].workunits[0].results[0]`);
  });

  it("--dry-run checks the token, the project and the app versions, reads everything and posts nothing", async () => {
    const dsn = await smallBoincDb(rig.maria, "dry_checks", T, [{}, {}]);
    const token = await createProject(rig.server.base, ADMIN, "dry-checks");
    const dry = (extra: Partial<BridgeOptions>) =>
      runBridge(options(dsn, "dry-checks", token, { dryRun: true, ...extra })).catch((e) => e as Error);
    expect(((await dry({ token: "cbp_wrong" })) as Error).message).toMatch(/refused the token/);
    expect(((await dry({ project: "no-such-project" })) as Error).message).toMatch(/refused the token|is --project right/);
    expect(((await dry({ url: `http://127.0.0.1:${await freePort()}` })) as Error).message).toMatch(/cannot reach the service/);
    const lines: string[] = [];
    const report = await dry({ events: linesBesidesIndexAdvice(lines) });
    expect(report).toMatchObject({ rows: 2, results: 2, passes: 2 });
    expect(lines).toEqual(["would register 2 apps (2 new) and 2 app versions (2 new)"]);
    const apps = await (
      await fetch(`${rig.server.base}/v1/projects/dry-checks/apps`, { headers: { Authorization: `Bearer ${token}` } })
    ).json();
    expect(apps.apps).toEqual([]);
    // An app version the service has under another app: the real run would be refused, so the dry run says so.
    await fetch(`${rig.server.base}/v1/projects/dry-checks/apps/other`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    });
    await fetch(`${rig.server.base}/v1/projects/dry-checks/app-versions/2`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ app: "other", platform: "x86_64-pc-linux-gnu", plan_class: "", version_num: 100 }),
    });
    expect(((await dry({})) as Error).message).toMatch(/app version 2: 'other' there, 'beta' here/);
  });

  it("reads up to the database's clock, not the bridge machine's: a bridge clock an hour ahead does not read a second still being written", async () => {
    const dsn = await smallBoincDb(rig.maria, "db_clock", T, [{}]);
    const conn = await rig.maria.root("db_clock");
    // Result 2 decided in the database's current second (its clock, not ours, stamps mod_time).
    const [[{ now }]] = (await conn.query("SELECT UNIX_TIMESTAMP() AS now")) as unknown as [[{ now: number }]];
    await conn.query(
      "INSERT INTO workunit (id, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults) VALUES (2, 1, 'wu2', 1e13, 1e14, 1)",
    );
    await conn.query(
      `INSERT INTO result (id, workunitid, outcome, hostid, userid, teamid, sent_time, received_time, cpu_time, validate_state, mod_time, elapsed_time, flops_estimate, app_version_id)
       VALUES (2, 2, 1, 7, 3, 5, ${now - 5000}, ${now - 100}, 900, 1, '${sqlTime(now)}', 1000, 1e10, 1)`,
    );
    await conn.end();
    const token = await createProject(rig.server.base, ADMIN, "db-clock");
    const ahead = Date.now() + 3_600_000;
    vi.spyOn(Date, "now").mockImplementation(() => ahead);
    try {
      const report = await runBridge(options(dsn, "db-clock", token));
      expect(report).toMatchObject({ rows: 1, results: 1 });
      expect(report.cursor).toEqual({ mod_time: T, id: 1 });
    } finally {
      vi.restoreAllMocks();
    }
  });
});
