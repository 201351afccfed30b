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
