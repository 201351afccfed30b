/**
 * Runs the project's migrations on a copy of the schema under other table names (one D1
 * database per test file), to test what a migration does to rows stored before it.
 */
import { env } from "cloudflare:workers";

/** Every table, index and trigger the migrations create. */
function createdNames(): Set<string> {
  const names = new Set<string>();
  for (const m of env.TEST_MIGRATIONS) {
    for (const q of m.queries)
      for (const [, name] of q.matchAll(/CREATE (?:UNIQUE )?(?:TABLE|INDEX|TRIGGER) `([a-z_0-9]+)`/g)) names.add(name!);
  }
  return names;
}

/** Runs the migration whose name starts with `number` ("0004"), every created name prefixed. */
export async function runRenamed(prefix: string, number: string): Promise<void> {
  const names = createdNames();
  const m = env.TEST_MIGRATIONS.find((x) => x.name.startsWith(number))!;
  const statements = m.queries
    .join("--> statement-breakpoint")
    .split("--> statement-breakpoint")
    .map((s) => s.replace(/`([a-z_0-9]+)`/g, (all, name: string) => (names.has(name) ? `\`${prefix}${name}\`` : all)))
    .filter((s) => s.trim() !== "");
  for (const statement of statements) await env.DB.prepare(statement).run();
}

/** Runs every migration before `number`, then `between` (rows as older code wrote them), then `number`. */
export async function migrateRenamedTo(prefix: string, number: string, between: () => Promise<void>): Promise<void> {
  const before = env.TEST_MIGRATIONS.map((m) => m.name.slice(0, 4))
    .filter((n) => n < number)
    .sort();
  for (const n of before) await runRenamed(prefix, n);
  await between();
  await runRenamed(prefix, number);
}
