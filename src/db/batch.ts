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

/** The batch failed because a row it inserts already exists (a concurrent duplicate). */
export function isPrimaryKeyConflict(e: unknown): boolean {
  const text = e instanceof Error ? `${e.message} ${String((e as { cause?: unknown }).cause ?? "")}` : String(e);
  return /UNIQUE constraint failed|PRIMARY KEY/i.test(text);
}
