import type { D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";

// Runs before each test file. The workerd suite runs its files one after another in one
// Worker (vitest.config.ts: `isolate: false`), so that the Worker and workerd start once per
// suite instead of once per file (about 3 s of CPU a file). Every file must still start from
// what a fresh Worker would see: freshly migrated, empty databases, an empty KV namespace and
// Cache API, the real clock. This file puts that back.
//
// test/credit/ tests the pure engine (src/credit: no I/O, no bindings), so its files skip the
// reset and the Worker: importing "cloudflare:test" is what loads the Worker's module graph
// (the plugin appends `import main` to it).
// The Cache API cannot list what it holds, so every `put` of the suite is noted (the Worker runs
// in this isolate: the same `Cache` class) and the next file deletes what the last ones put.
const PUT_URLS = Symbol.for("cobblestone.test.cachePutUrls");
type NotedCache = typeof globalThis & { [PUT_URLS]?: Set<string> };

const testPath = expect.getState().testPath ?? "";
if (!/\/test\/credit\//.test(testPath)) {
  // The Worker (src/index.ts) before the file's tests: a test that calls it first must not
  // spend its own timeout loading it (only the suite's first file does).
  await import("cloudflare:test");
  // A file that faked the clock or spied on a global and did not put it back.
  vi.useRealTimers();
  vi.restoreAllMocks();
  // The databases: everything dropped, then every migration in one batch per database (one
  // transaction), the databases at once. The d1_migrations table is the one wrangler and
  // applyD1Migrations keep.
  //   DB: the default database. DB_LARGE (wrangler.jsonc): a large project's own, same schema.
  //   DB_HISTORY_1, DB_HISTORY_2 (vitest.config.ts binds them for tests only): a project's
  //   daily history apart from its ledger. DB_UNMIGRATED is emptied and left unmigrated.
  await Promise.all([
    ...[env.DB, env.DB_LARGE, env.DB_HISTORY_1, env.DB_HISTORY_2].map((db) => remigrate(db, env.TEST_MIGRATIONS)),
    remigrate(env.DB_UNMIGRATED, []),
    emptyKv(env.KV),
    forgetCachedAnswers(),
  ]);
}

/** Drops every table and view a previous file left (their indexes and triggers go with them), then applies `migrations`. */
async function remigrate(db: D1Database, migrations: readonly D1Migration[]): Promise<void> {
  const { results: left } = await db
    .prepare("SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
    .all<{ type: "table" | "view"; name: string }>();
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const drops = [...left.filter((o) => o.type === "view"), ...left.filter((o) => o.type === "table")].map((o) =>
    db.prepare(`DROP ${o.type === "view" ? "VIEW" : "TABLE"} IF EXISTS ${quoted(o.name)}`),
  );
  if (migrations.length === 0) {
    if (drops.length > 0) await db.batch([db.prepare("PRAGMA defer_foreign_keys = ON"), ...drops]);
    return;
  }
  const insert = db.prepare("INSERT INTO d1_migrations (name) VALUES (?)");
  await db.batch([
    // Tables are dropped in any order: references between them are checked at commit, when none is left.
    db.prepare("PRAGMA defer_foreign_keys = ON"),
    ...drops,
    db.prepare(
      "CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)",
    ),
    ...migrations.flatMap((m) => [...m.queries.map((q) => db.prepare(q)), insert.bind(m.name)]),
  ]);
}

async function emptyKv(kv: KVNamespace): Promise<void> {
  for (let cursor: string | undefined; ;) {
    const page: KVNamespaceListResult<unknown> = await kv.list(cursor === undefined ? {} : { cursor });
    await Promise.all(page.keys.map((k) => kv.delete(k.name)));
    if (page.list_complete) return;
    cursor = page.cursor;
  }
}

/** Deletes from the Cache API what earlier files put, noted since the first file (see PUT_URLS). */
async function forgetCachedAnswers(): Promise<void> {
  const global = globalThis as NotedCache;
  if (global[PUT_URLS] === undefined) {
    const urls = new Set<string>();
    global[PUT_URLS] = urls;
    const proto = Object.getPrototypeOf(caches.default) as Cache;
    const put = proto.put;
    proto.put = function (this: Cache, request: RequestInfo | URL, response: Response) {
      urls.add(request instanceof Request ? request.url : String(request));
      return put.call(this, request, response);
    };
    return;
  }
  const urls = [...global[PUT_URLS]];
  global[PUT_URLS].clear();
  await Promise.all(urls.map((url) => caches.default.delete(url)));
}
