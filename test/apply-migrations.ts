import type { D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";

// Runs before each test file, in that file's own fresh storage (the pool isolates storage per
// file), so every file starts from freshly migrated, empty databases.
//
// test/credit/ tests the pure engine (src/credit: no I/O, no bindings), so its files skip both
// the migrations and the Worker: importing "cloudflare:test" is what loads the Worker's whole
// module graph (the plugin appends `import main` to it), about half of a file's start-up.
const testPath = expect.getState().testPath ?? "";
if (!/\/test\/credit\//.test(testPath)) {
  // The Worker (src/index.ts) before the file's tests, as before: a test that calls it first
  // must not spend its own timeout loading it.
  await import("cloudflare:test");
  // The migrations not yet applied, in one batch per database (one transaction), the four
  // databases at once: 12 round trips where applyD1Migrations makes 104 (a batch per migration
  // per database). The d1_migrations table is the one wrangler and applyD1Migrations keep.
  //   DB: the default database. DB_LARGE (wrangler.jsonc): a large project's own, same schema.
  //   DB_HISTORY_1, DB_HISTORY_2 (vitest.config.ts binds them for tests only): a project's
  //   daily history apart from its ledger. DB_UNMIGRATED is left unmigrated on purpose.
  await Promise.all([env.DB, env.DB_LARGE, env.DB_HISTORY_1, env.DB_HISTORY_2].map((db) => migrate(db, env.TEST_MIGRATIONS)));
}

async function migrate(db: D1Database, migrations: readonly D1Migration[]): Promise<void> {
  await db
    .prepare(
      "CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)",
    )
    .run();
  const applied = new Set((await db.prepare("SELECT name FROM d1_migrations").all<{ name: string }>()).results.map((r) => r.name));
  const insert = db.prepare("INSERT INTO d1_migrations (name) VALUES (?)");
  const statements = migrations
    .filter((m) => !applied.has(m.name))
    .flatMap((m) => [...m.queries.map((q) => db.prepare(q)), insert.bind(m.name)]);
  if (statements.length > 0) await db.batch(statements);
}
