/**
 * The packed bridge as an admin gets it onto a BOINC server: `npm run bridge:pack` in the
 * checkout, then `npm install -g --prefix DIR` of the tarball with no network and an empty npm
 * cache, run by the machine's own Node and npm rather than the repository's pinned Node 22.
 * For test/bridge/pack.test.ts and bench/bridge/pack-start.ts.
 */
import { spawn } from "node:child_process";
import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { PACK_DIR } from "../../bridge/pack/pack";

export const ROOT = new URL("../..", import.meta.url).pathname;

export interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** PATH without node_modules folders: `npm run` and npx put the repository's Node first, a BOINC server has its own. */
export function machinePath(path = process.env.PATH ?? ""): string {
  return path
    .split(":")
    .filter((dir) => dir !== "" && !dir.includes("node_modules"))
    .join(":");
}

export function run(command: string, args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv }): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** `npm run bridge:pack` as a developer runs it; the path of the one tarball it leaves. */
export async function buildTarball(): Promise<string> {
  const built = await run("npm", ["run", "-s", "bridge:pack"], { env: process.env });
  if (built.code !== 0) throw new Error(`npm run bridge:pack failed (${built.code}):\n${built.stdout}${built.stderr}`);
  const tarballs = (await readdir(PACK_DIR)).filter((f) => f.endsWith(".tgz"));
  if (tarballs.length !== 1) throw new Error(`expected one tarball in ${PACK_DIR}, found ${tarballs.join(", ") || "none"}`);
  return join(PACK_DIR, tarballs[0]!);
}

/**
 * Installs `tarball` into the empty folder `prefix` (`npm install -g --prefix`, as docs/bridge.md
 * installs into /opt/cobblestone-bridge) offline with an empty cache, so that a package needing
 * anything from a registry fails here; returns the installed executable.
 */
export async function installTarball(tarball: string, prefix: string): Promise<string> {
  await mkdir(prefix, { recursive: true });
  if ((await readdir(prefix)).length > 0) throw new Error(`${prefix} is not empty`);
  const cache = `${prefix}.npm-cache`;
  const env = { PATH: machinePath(), HOME: cache };
  const args = ["install", "--global", "--prefix", prefix, "--offline", "--cache", cache, "--no-audit", "--no-fund", tarball];
  const installed = await run("npm", args, { env });
  if (installed.code !== 0) throw new Error(`npm ${args.join(" ")} failed (${installed.code}):\n${installed.stdout}${installed.stderr}`);
  return join(prefix, "bin", "cobblestone-bridge");
}
