/**
 * A statement's text and parameters for D1, as drizzle's SQLite dialect renders them, for the
 * kinds of pieces the writers build (text, nested SQL, identifiers, tables, columns, bound
 * values). Drizzle's generic walk spends about as long on a pass batch's 400 statements as D1
 * spends running them (BENCHMARKS.md, pass batches); this one is a single flat pass. Anything
 * else (placeholders, inlined params, aliases, subqueries, query builders…) returns null, and
 * the caller renders that statement with drizzle. test/db/render-sql.test.ts holds the two
 * equal over every statement of a replayed workload.
 *
 * It reads drizzle's internals (Table's symbols, StringChunk, Name, Param, `shouldInlineParams`),
 * which no semver range promises: drizzle-orm is pinned to one exact version for this
 * (package.json says so beside the pin), and a bump must pass that test first.
 */
import { Column, Name, Param, Placeholder, SQL, StringChunk, Table } from "drizzle-orm";

export interface RenderedQuery {
  readonly sql: string;
  readonly params: unknown[];
}

/** SQLite's quoting of a name, as the dialect's escapeName. */
const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

const isBound = (v: unknown) =>
  v === null || typeof v === "number" || typeof v === "string" || typeof v === "bigint" || typeof v === "boolean";

type TableSymbols = { Name: symbol; Schema: symbol; IsAlias: symbol };
const symbols = (Table as unknown as { Symbol: TableSymbols }).Symbol;

/** The table's quoted name, or null when the dialect would render it otherwise (a schema, an alias). */
function tableName(table: unknown): string | null {
  const t = table as Record<symbol, unknown>;
  if (t[symbols.Schema] !== undefined || t[symbols.IsAlias]) return null;
  return quoted(t[symbols.Name] as string);
}

export function renderStatement(statement: SQL): RenderedQuery | null {
  const text: string[] = [];
  const params: unknown[] = [];
  const walk = (chunks: readonly unknown[]): boolean => {
    for (const chunk of chunks) {
      if (chunk instanceof StringChunk) text.push(chunk.value.join(""));
      else if (chunk instanceof SQL) {
        if ((chunk as unknown as { shouldInlineParams: boolean }).shouldInlineParams || !walk(chunk.queryChunks)) return false;
      } else if (chunk instanceof Name) text.push(quoted(chunk.value));
      else if (chunk === undefined) continue;
      else if (isBound(chunk)) {
        text.push("?");
        params.push(chunk);
      } else if (chunk instanceof Column) {
        const table = tableName(chunk.table);
        if (table === null || chunk.keyAsName) return false;
        text.push(`${table}.${quoted(chunk.name)}`);
      } else if (chunk instanceof Table) {
        const table = tableName(chunk);
        if (table === null) return false;
        text.push(table);
      } else if (chunk instanceof Param) {
        if (chunk.value instanceof Placeholder) return false;
        const value = chunk.value === null ? null : chunk.encoder.mapToDriverValue(chunk.value);
        if (!isBound(value)) return false;
        text.push("?");
        params.push(value);
      } else return false;
    }
    return true;
  };
  return walk([statement]) ? { sql: text.join(""), params } : null;
}
