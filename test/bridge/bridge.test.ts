/**
 * The bridge end to end: a real MariaDB holding bridge-11 in BOINC's tables, a real
 * `wrangler dev`, and the bridge between them. Every number must match bridge-11's expected
 * numbers to 1e-9, --compare must find BOINC and Cobblestone agreeing on every result, and a
 * run killed half way and started again must end with the same numbers.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { beforeAll, describe, expect, it } from "vitest";
import { runBridge, type BridgeOptions } from "../../bridge/running/run";
import { boincDbWithTrace } from "./boinc-fixture";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject, traceMismatches } from "./service";

const ADMIN = "bridge-test-admin-token";
const ROOT = new URL("../..", import.meta.url).pathname;
const available = suiteNeeds("the bridge from a BOINC database into wrangler dev", import.meta.url, "mariadb-server", mariadbAvailable());

describe.skipIf(!available)("the bridge from a BOINC database into wrangler dev", () => {
  const rig = bridgeRig(ADMIN, { work: "cobblestone-bridge-" });
  let boinc: Awaited<ReturnType<typeof boincDbWithTrace>>;

  beforeAll(async () => {
    boinc = await boincDbWithTrace(rig.maria, "boinc11", "bridge-11");
  });

  const options = (slug: string, token: string, extra: Partial<BridgeOptions> = {}): BridgeOptions => ({
    db: boinc.dsn,
    url: rig.server.base,
    project: slug,
    token,
    stateFile: join(rig.work, `${slug}.state.json`),
    since: null,
    rescaleEvery: 600,
    dryRun: false,
    compare: null,
    progress: false,
    log: () => undefined,
    ...extra,
  });

  it("backfills bridge-11 with every expected number to 1e-9, and --compare agrees on every result", async () => {
    const token = await createProject(rig.server.base, ADMIN, "full");
    const csv = join(rig.work, "full.csv");
    const report = await runBridge(options("full", token, { compare: csv }));

    const traceResults = boinc.ops.flatMap((o) => (o.op === "pass" ? o.workunits.flatMap((w) => w.results) : []));
    const traceErrors = boinc.ops.filter((o) => o.op === "error").length;
    // bridge-11 has 80 passes and 43 rescales, one second each: the bridge rebuilds exactly those,
    // sending the passes between two rescales (or error reports) together.
    expect(report).toMatchObject({
      passes: 80,
      rescales: 43,
      errors: traceErrors,
      skipped: 0,
      results: traceResults.length,
      error_outcomes: traceErrors,
      replayed: 0,
    });
    expect(report.requests).toBeLessThan(report.passes);

    expect(await traceMismatches(rig.server.base, "full", token, boinc.expected, boinc.appNumbers)).toEqual([]);

    // BOINC's granted_credit in the database is the expected number, so they must all agree.
    expect(report.compare).toMatchObject({ results: traceResults.length, agreeing: traceResults.length });
    const lines = (await readFile(csv, "utf8")).trim().split("\n");
    expect(lines[0]).toBe("result_id,workunit_id,app,boinc_granted_credit,cobblestone_granted_credit,ratio,difference");
    expect(lines).toHaveLength(traceResults.length + 1);
    const granted = new Map(boinc.expected.results.map((r) => [r.id, r.granted_credit]));
    for (const line of lines.slice(1, 200)) {
      const [id, , , , cobblestone] = line.split(",");
      expect(Number(cobblestone)).toBeCloseTo(granted.get(Number(id))!, 6);
    }

    // A second run finds nothing new: the cursor is at the end.
    const again = await runBridge(options("full", token));
    expect(again).toMatchObject({ results: 0, passes: 0, rescales: 0 });
  });

  it("a run killed half way and started again ends with the same numbers", async () => {
    const token = await createProject(rig.server.base, ADMIN, "killed");
    const state = join(rig.work, "killed.state.json");
    const passTimes = boinc.ops.filter((o) => o.op === "pass").map((o) => o.now);
    const halfway = passTimes[Math.floor(passTimes.length / 2)]!;
    const args = [
      "--import",
      "tsx",
      "bridge/cli.ts",
      "--db",
      boinc.dsn,
      "--url",
      rig.server.base,
      "--project",
      "killed",
      "--state",
      state,
      "--no-progress",
    ];
    const child = spawn("node", args, {
      cwd: ROOT,
      env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`, COBBLESTONE_TOKEN: token },
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    // Kill it (no chance to clean up) once its state shows it is past half the history.
    for (;;) {
      const cursor = await readFile(state, "utf8").then(
        (t) => JSON.parse(t).cursor.mod_time as number,
        () => 0,
      );
      if (cursor >= halfway || child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill("SIGKILL");
    await exited;
    const stopped = JSON.parse(await readFile(state, "utf8")).cursor.mod_time as number;
    expect(stopped).toBeLessThan(passTimes.at(-1)!);

    const rest = await runBridge(options("killed", token, { stateFile: state }));
    expect(rest.results).toBeGreaterThan(0);
    expect(await traceMismatches(rig.server.base, "killed", token, boinc.expected, boinc.appNumbers)).toEqual([]);
  });
});
