/** Every row of every table (but the audit log): equal before and after means nothing was written. */
import { env } from "cloudflare:workers";

const SKIPPED = /^(sqlite_|_cf_|d1_migrations$|audit_log$)/;

export async function dbState(): Promise<Record<string, string[]>> {
  const { results: tables } = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all<{
    name: string;
  }>();
  const state: Record<string, string[]> = {};
  for (const { name } of tables) {
    if (SKIPPED.test(name)) continue;
    const { results: rows } = await env.DB.prepare(`SELECT * FROM "${name}"`).all();
    state[name] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return state;
}
