/** wrangler's local D1 in a fresh, migrated folder. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPlatformProxy } from "wrangler";
import { migrationStatements } from "./migrations";

export interface LocalD1 {
  readonly d1: D1Database;
  /** The state folder (its database files, for dbstat). */
  readonly persist: string;
  dispose(): Promise<void>;
}

/** The default database of wrangler.jsonc on local D1 (getPlatformProxy), in a new folder named `prefix…`, migrated. */
export async function migratedLocalD1(root: string, prefix: string): Promise<LocalD1> {
  const persist = mkdtempSync(join(tmpdir(), prefix));
  const proxy = await getPlatformProxy<{ DB: D1Database }>({ configPath: join(root, "wrangler.jsonc"), persist: { path: persist } });
  try {
    for (const stmt of migrationStatements(join(root, "migrations"))) await proxy.env.DB.prepare(stmt).run();
  } catch (e) {
    await proxy.dispose();
    throw e;
  }
  return { d1: proxy.env.DB, persist, dispose: () => proxy.dispose() };
}
