/**
 * Starts `wrangler dev` for a test: its own free port and its own fresh local D1/KV (a temp
 * --persist-to, a copy of the migrated state: migrated-state.ts), never the developer's
 * .wrangler/state or 8787.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copyMigratedState } from "./migrated-state";

const ROOT = new URL("../..", import.meta.url).pathname;

/** npm scripts put node_modules/.bin (with the pinned Node 22 that wrangler needs) first. */
const ENV = {
  ...process.env,
  PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH ?? ""}`,
  CI: "1", // no prompts
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false", // as `npm run dev`: no network for request.cf
};

export interface WranglerDev {
  readonly base: string;
  /** Everything wrangler printed so far (its request log has each response's time). */
  log(): string;
  stop(): Promise<void>;
}

/** A port nothing listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once("exit", () => r()));
}

/** `configPath`: another wrangler config than wrangler.jsonc (the bridge benchmark lifts the rate limit). */
export async function startWranglerDev(adminToken: string, timeoutMs = 90_000, configPath?: string): Promise<WranglerDev> {
  const persist = await mkdtemp(join(tmpdir(), "cobblestone-browser-state-"));
  const config = configPath ? ["--config", configPath] : [];
  await copyMigratedState(ROOT, ENV, persist, configPath);
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const args = ["wrangler", "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort)];
  args.push("--persist-to", persist, "--var", `ADMIN_TOKEN:${adminToken}`, ...config);
  // Its own process group, so that stop() ends wrangler and the workerd it started, and nothing else.
  const child = spawn("npx", args, { cwd: ROOT, env: ENV, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid!, "SIGTERM");
      const killed = setTimeout(() => child.exitCode === null && process.kill(-child.pid!, "SIGKILL"), 5000);
      await exited(child);
      clearTimeout(killed);
    }
    await rm(persist, { recursive: true, force: true });
  };

  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${output}`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev did not answer /health within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { base, log: () => output, stop };
}
