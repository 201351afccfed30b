/**
 * Starts the service the way a user does (`wrangler dev`, local D1 and KV) in a fresh state
 * folder, and reads the peak memory of its workerd process.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ADMIN_TOKEN = "bench-admin-token";

export interface Server {
  readonly url: string;
  readonly stateDir: string;
  /** Peak resident memory of workerd so far (VmHWM), in MiB. */
  peakMemoryMiB(): number;
  stop(): Promise<void>;
}

const npx = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  execFileSync("npx", args, { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, CI: "1", ...env } });

/** Applies the migrations to a state folder; `sqlFile` (optional) is run after them. */
export function prepareState(stateDir: string, sqlFile?: string): void {
  // Both databases of wrangler.jsonc: the default and a large project's own (DB_LARGE).
  for (const binding of ["DB", "DB_LARGE"]) npx(["wrangler", "d1", "migrations", "apply", binding, "--local", "--persist-to", stateDir]);
  if (sqlFile) npx(["wrangler", "d1", "execute", "DB", "--local", "--persist-to", stateDir, "--file", sqlFile, "--yes"]);
}

export function freshStateDir(): string {
  return mkdtempSync(join(tmpdir(), "cobblestone-bench-"));
}

function descendants(pid: number): number[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of rows) {
      if (parent === p) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

function vmHwmKiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : 0;
}

export async function startServer(port: number, stateDir: string, extraArgs: readonly string[] = []): Promise<Server> {
  const child: ChildProcess = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "--port",
      String(port),
      "--persist-to",
      stateDir,
      "--var",
      `ADMIN_TOKEN:${ADMIN_TOKEN}`,
      "--log-level",
      "warn",
      ...extraArgs,
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", CI: "1" }, detached: true },
  );
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`wrangler dev did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const workerd = () => descendants(child.pid!).filter((p) => commandOf(p) === "workerd");
  return {
    url,
    stateDir,
    peakMemoryMiB: () => Math.max(0, ...workerd().map(vmHwmKiB)) / 1024,
    stop: async () => {
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
      await new Promise((r) => setTimeout(r, 500));
    },
  };
}
