/**
 * The bridge as a BOINC server runs it (issue 42): `npm run bridge:pack` builds the tarball, npm
 * installs it offline into an empty folder, and the installed `cobblestone-bridge`, run by the
 * machine's own Node with a cron job's bare environment, prints its usage and version, backfills
 * a trace into a real `wrangler dev`, and writes the service's credit back into a real MariaDB.
 * It runs on the oldest Node its engines name (Node 20: /usr/bin/node on this project's machines),
 * not only on whatever Node is newest here; an older Node is told which Node to install.
 * The sizes are printed, not asserted (BENCHMARKS.md, "The installed bridge").
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { MIN_NODE_MAJOR, oldNodeProblem } from "../../bridge/shared/node-version";
import { SYSTEMD_DIR } from "../../bridge/pack/pack";
import { BRIDGE_VERSION } from "../../bridge/shared/version";
import { boincDbWithTrace } from "./boinc-fixture";
import { buildTarball, type Exit, installTarball, machinePath, run } from "./installed-bridge";
import { mariadbAvailable } from "./mariadb";
import { bridgeRig } from "./rig";
import { createProject, traceMismatches } from "./service";
import type { TraceOp } from "./trace-types";
import { asNoCreditValidatorLeftIt, checker, expectedColumns, writerDsn } from "./write-back-check";

const ADMIN = "bridge-pack-admin-token";
const available = suiteNeeds("the installed bridge against MariaDB and the service", import.meta.url, "mariadb-server", mariadbAvailable());

/** A `node` of this major: the machine's (its PATH without node_modules, then /usr/bin and /usr/local/bin); null when none. */
function nodeOfMajor(major: number): string | null {
  const candidates = new Set([
    ...machinePath()
      .split(":")
      .map((dir) => join(dir, "node")),
    "/usr/bin/node",
    "/usr/local/bin/node",
  ]);
  for (const node of candidates) {
    if (!existsSync(node)) continue;
    const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout?.trim() ?? "";
    if (Number(/^v(\d+)\./.exec(version)?.[1]) === major) return node;
  }
  return null;
}

/** The oldest Node the package declares, found on this machine: npm scripts put the repository's Node 22 first, a BOINC server may have 20. */
const oldestNode = nodeOfMajor(MIN_NODE_MAJOR);
const onOldest = suiteNeeds(
  `the installed bridge on Node ${MIN_NODE_MAJOR}, the oldest its engines name`,
  import.meta.url,
  `nodejs ${MIN_NODE_MAJOR}.x`,
  oldestNode !== null,
  `no node of major ${MIN_NODE_MAJOR} on the PATH, at /usr/bin/node or /usr/local/bin/node: install nodejs ${MIN_NODE_MAJOR}.x from NodeSource's packages`,
);
/** PATH as cron has it: the machine's, with the oldest declared Node first when there is one (the executable starts with `#!/usr/bin/env node`). */
const cronPath = (node: string | null = oldestNode) => (node ? `${dirname(node)}:${machinePath()}` : machinePath());

let work: string;
let prefix: string;
let bin: string;

/** The installed executable with nothing but PATH (the oldest declared Node, else the machine's), HOME and `env`, as cron runs it. */
const installed = (args: string[], env: Record<string, string> = {}, cwd?: string, path = cronPath()): Promise<Exit> =>
  run(bin, args, { cwd: cwd ?? work, env: { PATH: path, HOME: join(work, "home"), ...env } });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "cobblestone-pack-"));
  prefix = join(work, "opt", "cobblestone-bridge");
  const tarball = await buildTarball();
  bin = await installTarball(tarball, prefix);
  const du = await promisify(execFile)("du", ["-sk", prefix]);
  console.log(
    `cobblestone-bridge ${BRIDGE_VERSION}: tarball ${(await stat(tarball)).size} bytes; installed ${du.stdout.split("\t")[0]} KiB (du -sk ${prefix})`,
  );
});
afterAll(() => work && rm(work, { recursive: true, force: true }));

/** --help, --version and bad input, on the Node that PATH names. */
async function usageVersionAndBadInput(path: string): Promise<void> {
  const help = await installed(["--help"], {}, undefined, path);
  expect(help.code, help.stderr).toBe(0);
  expect(help.stdout).toMatch(/^usage: cobblestone-bridge --url BASE_URL --project SLUG\n/);
  const version = await installed(["--version"], {}, undefined, path);
  expect(version.code, version.stderr).toBe(0);
  const manifest = JSON.parse(await readFile(join(prefix, "lib/node_modules/cobblestone-bridge/package.json"), "utf8"));
  expect(version.stdout).toBe(`${BRIDGE_VERSION}\n`);
  expect(manifest.version).toBe(BRIDGE_VERSION);
  const missing = await installed(["--url", "http://127.0.0.1:9"], {}, undefined, path);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/^bridge: missing --db \(or BOINC_DB_URL, or --boinc-config\), --project, --token/);
}

describe("the packed bridge, installed from its tarball", () => {
  it("runs on the machine's own Node, at least the one its engines name", async () => {
    const manifest = JSON.parse(await readFile(join(prefix, "lib/node_modules/cobblestone-bridge/package.json"), "utf8"));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.engines.node).toBe(`>=${MIN_NODE_MAJOR}`);
    const node = (await run("node", ["--version"], { env: { PATH: machinePath() } })).stdout.trim();
    console.log(
      `the installed bridge runs on Node ${node} (the machine's) and ${oldestNode ? `on ${oldestNode}, the oldest its engines name` : `not on Node ${MIN_NODE_MAJOR}: none here`} (engines: ${manifest.engines.node})`,
    );
    expect(Number(/^v(\d+)/.exec(node)![1])).toBeGreaterThanOrEqual(MIN_NODE_MAJOR);
  });

  it("ships the systemd units and their examples as bridge/pack/package/systemd/ has them (test/bridge/systemd-units.test.ts checks them)", async () => {
    const installedDir = join(prefix, "lib/node_modules/cobblestone-bridge", SYSTEMD_DIR);
    const sourceDir = fileURLToPath(new URL(`../../bridge/pack/package/${SYSTEMD_DIR}/`, import.meta.url));
    const names = (await readdir(sourceDir)).sort();
    expect((await readdir(installedDir)).sort()).toEqual(names);
    expect(names).toContain("cobblestone-bridge@.service");
    for (const name of names)
      expect(await readFile(join(installedDir, name), "utf8"), name).toBe(await readFile(join(sourceDir, name), "utf8"));
  });

  it("--help prints the usage under its own name, --version the package's version; bad input exits 2", async () => {
    await usageVersionAndBadInput(machinePath());
  });

  it("on an older Node it says which Node to install and exits 2, whatever it was asked", async () => {
    // A Node that calls itself 18, as Debian 12's own does: the executable checks before it loads the bundle.
    const fake = join(work, "node-18.cjs");
    await writeFile(fake, `Object.defineProperty(process.versions, "node", { value: "18.19.1" });\n`);
    for (const args of [["--version"], ["--url", "http://127.0.0.1:9"], ["audit", "--help"]]) {
      const old = await installed(args, { NODE_OPTIONS: `--require ${fake}` }, undefined, machinePath());
      expect(old.code, old.stderr).toBe(2);
      expect(old.stdout).toBe("");
      expect(old.stderr).toBe(`${oldNodeProblem("18.19.1")}\n`);
    }
  });
});

describe.skipIf(!onOldest)(`the installed bridge on Node ${MIN_NODE_MAJOR}, the oldest its engines name`, () => {
  it("is run by that Node from a cron job's PATH; --help, --version and bad input as on any other", async () => {
    const node = (await run("node", ["--version"], { env: { PATH: cronPath() } })).stdout.trim();
    expect(Number(/^v(\d+)/.exec(node)![1])).toBe(MIN_NODE_MAJOR);
    await usageVersionAndBadInput(cronPath());
  });
});

/** Results in the trace's passes: every one the validator decided, valid or not, is posted once. */
const decided = (ops: TraceOp[]) => ops.flatMap((o) => (o.op === "pass" ? o.workunits.flatMap((w) => w.results) : []));

describe.skipIf(!available)("the installed bridge against MariaDB and the service", () => {
  const rig = bridgeRig(ADMIN);

  it("backfills a trace: the service holds BOINC's numbers, the cursor is in the default state file", async () => {
    const boinc = await boincDbWithTrace(rig.maria, "pack_backfill", "bridge-11");
    const token = await createProject(rig.server.base, ADMIN, "pack-backfill");
    const exit = await installed(["--url", rig.server.base, "--project", "pack-backfill", "--no-progress"], {
      COBBLESTONE_TOKEN: token,
      BOINC_DB_URL: boinc.dsn,
    });
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout).toMatch(new RegExp(`^posted ${decided(boinc.ops).length} validated results in `));
    expect(await traceMismatches(rig.server.base, "pack-backfill", token, boinc.expected, boinc.appNumbers)).toEqual([]);
    const state = JSON.parse(await readFile(join(work, "home/.local/state/cobblestone/bridge-pack-backfill.json"), "utf8"));
    expect(state.cursor.mod_time).toBeGreaterThan(0);
  });

  it("--write-back writes BOINC's grants into every credit column, the state file where the relative --state says", async () => {
    const boinc = await boincDbWithTrace(rig.maria, "pack_wb", "bridge-11");
    await asNoCreditValidatorLeftIt(rig.maria, "pack_wb");
    const writer = await writerDsn(rig.maria, "pack_wb");
    const token = await createProject(rig.server.base, ADMIN, "pack-wb");
    const args = ["--url", rig.server.base, "--project", "pack-wb", "--state", "wb.json", "--no-progress"];
    const exit = await installed([...args, "--write-back", "--credit-by-app", "--switch-time", "0"], {
      COBBLESTONE_TOKEN: token,
      BOINC_DB_URL: writer,
    });
    expect(exit.code, exit.stderr).toBe(0);
    const valid = decided(boinc.ops).filter((r) => r.validate_state === "valid").length;
    expect(exit.stdout).toContain(
      `; wrote back ${valid} results (0 written before, 0 skipped, 0 validated before the switch with BOINC's credit, 0 missing hosts/users/teams`,
    );
    expect(JSON.parse(await readFile(join(work, "wb.json"), "utf8")).cursor.mod_time).toBeGreaterThan(0);

    const conn = await rig.maria.root("pack_wb");
    const rows = async <T>(sql: string) => (await conn.query(sql))[0] as T[];
    type Holder = { id: number; total_credit: number; expavg_credit: number; expavg_time: number };
    const hosts = await rows<Holder & { userid: number }>("SELECT id, userid, total_credit, expavg_credit, expavg_time FROM host");
    const users = await rows<Holder & { teamid: number }>("SELECT id, teamid, total_credit, expavg_credit, expavg_time FROM user");
    const teams = await rows<Holder>("SELECT id, total_credit, expavg_credit, expavg_time FROM team");
    const apps = await rows<{ id: number; name: string }>("SELECT id, name FROM app");
    const { mismatches, check } = checker();
    // Results, workunits and totals: BOINC's own numbers, as the trace recorded its validator granting them.
    const granted = new Map(
      (await rows<{ id: number; granted_credit: number }>("SELECT id, granted_credit FROM result")).map((r) => [r.id, r]),
    );
    for (const r of boinc.expected.results) check(`result ${r.id} granted_credit`, granted.get(r.id)?.granted_credit, r.granted_credit);
    const canonical = new Map(
      (await rows<{ id: number; canonical_credit: number }>("SELECT id, canonical_credit FROM workunit")).map((w) => [w.id, w]),
    );
    for (const w of boinc.expected.workunits) check(`workunit ${w.id} canonical_credit`, canonical.get(w.id)?.canonical_credit, w.credit);
    const table = { hosts, users, teams };
    for (const kind of ["hosts", "users", "teams"] as const) {
      const byId = new Map<number, Holder>(table[kind].map((h) => [h.id, h]));
      for (const e of boinc.expected[kind]) check(`${kind} ${e.id} total_credit`, byId.get(e.id)?.total_credit, e.total_credit);
    }
    // Recent averages and the per-app rows: BOINC's update_average over those grants, at the bridge's grant times (write-back-check.ts).
    const want = expectedColumns(
      boinc.ops,
      new Map(boinc.expected.results.map((r) => [r.id, r.granted_credit])),
      new Map(hosts.map((h) => [h.id, h.userid])),
      new Map(users.map((u) => [u.id, u.teamid])),
      new Map(apps.map((a) => [a.name, a.id])),
    );
    for (const [kind, list] of [
      ["host", hosts],
      ["user", users],
      ["team", teams],
    ] as const) {
      for (const h of list) {
        const a = want.holders[kind].get(h.id) ?? { avg: 0, time: 0 };
        check(`${kind} ${h.id} expavg_credit`, h.expavg_credit, a.avg);
        check(`${kind} ${h.id} expavg_time`, h.expavg_time, a.time);
      }
    }
    for (const [name, holder, map] of [
      ["credit_user", "userid", want.creditUser],
      ["credit_team", "teamid", want.creditTeam],
    ] as const) {
      const got = await rows<{ holder: number; appid: number; total: number; njobs: number }>(
        `SELECT ${holder} AS holder, appid, total, njobs FROM ${name} WHERE credit_type = 0`,
      );
      check(`${name} rows`, got.length, map.size);
      for (const row of got) {
        check(`${name} ${row.holder}/${row.appid} total`, row.total, map.get(`${row.holder}/${row.appid}`)?.total ?? NaN);
        check(`${name} ${row.holder}/${row.appid} njobs`, row.njobs, map.get(`${row.holder}/${row.appid}`)?.njobs ?? NaN);
      }
    }
    await conn.end();
    expect(mismatches).toEqual([]);
  });
});
