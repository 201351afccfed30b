/**
 * A `wrangler dev --persist-to` directory with every migration applied to both databases of a
 * wrangler config, built once by `wrangler d1 migrations apply` and copied for each server a
 * test starts: applying them costs two wrangler processes (about 15 s of CPU each here), copying
 * a few hundred KB. Kept under node_modules/.cache, named by a hash of the migrations and the
 * config, so a changed migration builds a new one and `npm ci` starts afresh.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

/** Both databases of wrangler.jsonc: the default and a large project's own. */
const BINDINGS = ["DB", "DB_LARGE"];

/** Copies the migrated state for `configPath` (wrangler.jsonc by default) into `persist`. */
export async function copyMigratedState(root: string, env: NodeJS.ProcessEnv, persist: string, configPath?: string): Promise<void> {
  await cp(await migratedState(root, env, configPath), persist, { recursive: true });
}

async function migratedState(root: string, env: NodeJS.ProcessEnv, configPath?: string): Promise<string> {
  const cache = join(root, "node_modules/.cache/cobblestone-test-state");
  const built = join(cache, await stateKey(root, configPath));
  if (existsSync(built)) return built;
  await mkdir(cache, { recursive: true });
  // Built aside, then renamed into place: test files building it at once each finish their own,
  // and the first rename wins (a directory is never seen half built).
  const building = await mkdtemp(join(cache, "building-"));
  const config = configPath ? ["--config", configPath] : [];
  // One after another: two wranglers at once would share the directory's metadata database.
  for (const binding of BINDINGS) {
    await promisify(execFile)("npx", ["wrangler", "d1", "migrations", "apply", binding, "--local", "--persist-to", building, ...config], {
      cwd: root,
      env,
    });
  }
  try {
    await rename(building, built);
  } catch (err) {
    if (!existsSync(built)) throw err;
    await rm(building, { recursive: true, force: true });
  }
  return built;
}

async function stateKey(root: string, configPath?: string): Promise<string> {
  const hash = createHash("sha256");
  const dir = join(root, "migrations");
  for (const name of (await readdir(dir)).filter((n) => n.endsWith(".sql")).sort()) {
    hash.update(name).update(await readFile(join(dir, name)));
  }
  hash.update(await readFile(resolve(root, configPath ?? "wrangler.jsonc")));
  return hash.digest("hex").slice(0, 16);
}
