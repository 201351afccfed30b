import type { SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";
import { renderStatement } from "./render-sql";

const dialect = new SQLiteAsyncDialect();

/** Runs statements as ONE D1 batch: a transaction, all or nothing. Returns each statement's result. */
export async function runBatch(db: Db, statements: readonly SQL[]): Promise<D1Result[]> {
  if (statements.length === 0) return [];
  const d1 = db.$client;
  return d1.batch(
    statements.map((s) => {
      const q = renderStatement(s) ?? dialect.sqlToQuery(s);
      return d1.prepare(q.sql).bind(...q.params);
    }),
  );
}

/**
 * `runBatch` with the results read by name instead of by position: the named statements run
 * first, in the object's order, then `after` (whose results nobody reads).
 */
export async function runNamedBatch<K extends string>(
  db: Db,
  named: Readonly<Record<K, SQL>>,
  after: readonly SQL[] = [],
): Promise<Record<K, D1Result>> {
  const keys = Object.keys(named) as K[];
  const results = await runBatch(db, [...keys.map((k) => named[k]), ...after]);
  return Object.fromEntries(keys.map((k, i) => [k, results[i]!])) as Record<K, D1Result>;
}

/** The batch failed because a row it inserts already exists (a concurrent duplicate). */
export function isPrimaryKeyConflict(e: unknown): boolean {
  const text = e instanceof Error ? `${e.message} ${String((e as { cause?: unknown }).cause ?? "")}` : String(e);
  return /UNIQUE constraint failed|PRIMARY KEY/i.test(text);
}
