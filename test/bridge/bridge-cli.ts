/**
 * For the bridge tests that run it as an admin does: the CLI in a child process (`node --import
 * tsx bridge/cli.ts`, its exit status and output being what is tested), and the rows a
 * --no_credit validator leaves for it to follow.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import type mysql from "mysql2/promise";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";

const ROOT = new URL("../..", import.meta.url).pathname;

export interface BridgeCli {
  child: ChildProcess;
  /** The exit status (null: killed by a signal). */
  exited: Promise<number | null>;
  stderr(): string;
  stdout(): string;
}

/** Every bridge started, so that a failed test can leave none running (`killBridges`). */
const started: ChildProcess[] = [];

/** `args` after `--no-progress` (a subcommand, `audit`, first); `env` adds to this process's (the token, BOINC_DB_URL). */
export function startBridgeCli(args: string[], env: Record<string, string>): BridgeCli {
  const lead = args[0] === "audit" ? args : ["--no-progress", ...args];
  const child = spawn("node", ["--import", "tsx", "bridge/cli.ts", ...lead], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}`, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  let stderr = "";
  let stdout = "";
  child.stderr!.on("data", (d) => (stderr += d));
  child.stdout!.on("data", (d) => (stdout += d));
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  return { child, exited, stderr: () => stderr, stdout: () => stdout };
}

/** For an afterAll: SIGKILL every bridge a failed test left running. */
export function killBridges(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

/**
 * A write-back run killed (SIGKILL) again and again, each time at a point a seeded random()
 * picks: a bridge is started, and, on a share `waitShare` of the attempts, waited for until it
 * has written another row into `cobblestone_writeback` (400 looks 10 ms apart at most); then a
 * random jitter of up to `jitterMs`, and it is killed. It stops after `kills` kills, after
 * `attempts` runs, or when a run ends before its kill (it had nothing left to write). Returns
 * the kills. random() is a fixed LCG from `seed`, called once per attempt for the jitter, and
 * first for the wait's decision when `waitShare` is given: a seed draws the same decisions and
 * jitters on every run of the test.
 */
export async function killAgainAndAgain(
  args: string[],
  env: Record<string, string>,
  /** A root connection to the BOINC database the runs write (their table is counted there). */
  conn: mysql.Connection,
  o: { seed: number; kills: number; attempts?: number; waitShare?: number; jitterMs: number },
): Promise<number> {
  let seed = o.seed;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  // 0 until the first run creates the table.
  const written = async () =>
    conn.query("SELECT COUNT(*) AS n FROM cobblestone_writeback").then(
      ([rows]) => Number((rows as { n: number }[])[0]!.n),
      () => 0,
    );
  let kills = 0;
  for (let attempt = 0; attempt < (o.attempts ?? Infinity) && kills < o.kills; attempt++) {
    const run = startBridgeCli(args, env);
    const before = await written();
    const waitForWrite = o.waitShare === undefined || random() < o.waitShare;
    for (let i = 0; i < 400 && run.child.exitCode === null; i++) {
      if (!waitForWrite || (await written()) > before) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, random() * o.jitterMs));
    if (run.child.exitCode !== null) break;
    run.child.kill("SIGKILL");
    await run.exited;
    kills++;
  }
  return kills;
}

/**
 * A valid success as a --no_credit validator leaves it (granted 0), of host 7 (user 3, team 5:
 * boinc-fixture.ts's smallBoincDb), reported 10 s ago; `id` null leaves it to AUTO_INCREMENT.
 */
export function noCreditResult(id: number | null, workunitId = id): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    ...(id === null ? {} : { id }),
    workunitid: workunitId,
    outcome: OUTCOME.success,
    hostid: 7,
    userid: 3,
    teamid: 5,
    sent_time: now - 5000,
    received_time: now - 10,
    cpu_time: 900,
    validate_state: VALIDATE_STATE.valid,
    granted_credit: 0,
    elapsed_time: 1000,
    flops_estimate: 1e10,
    app_version_id: 1,
  };
}

/** A workunit of app 1 and its one result, validated as --no_credit leaves it. */
export async function validateNoCredit(conn: mysql.Connection, id: number): Promise<void> {
  await conn.query(
    "INSERT INTO workunit (id, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults) VALUES (?, 1, ?, 1e13, 1e14, 1)",
    [id, `live${id}`],
  );
  await conn.query("INSERT INTO result SET ?", [noCreditResult(id)]);
}
