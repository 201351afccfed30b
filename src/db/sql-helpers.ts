import { type AnyColumn, type SQL, getTableColumns, getTableName, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

/** A bare column name, as an expression for the row's current value or a SET target. */
export function col(columnName: string): SQL {
  return sql`${sql.identifier(columnName)}`;
}

/** A drizzle column's bare name, for INSERT column lists and UPDATE SET targets. */
export function name(column: AnyColumn): SQL {
  return col(column.name);
}

/** `(SELECT value FROM json_each(?))`: a whole id list as ONE bound parameter (D1 allows 100). */
export function jsonList(values: readonly (number | string)[]): SQL {
  return sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/**
 * A JSON row property holding a 64-bit integer as decimal text (a JS number cannot hold it),
 * as the integer, for insertFromJson's fields.
 */
export function jsonInt64(property: string): SQL {
  return sql`CAST(json_extract(j.value, ${`$.${property}`}) AS INTEGER)`;
}

/** A time stored in whole seconds (results, workunits, trickles): a second's precision is all the purge and the fairness window need. */
export function wholeSeconds(time: number): number {
  return Math.floor(time);
}

/** A stored 64-bit integer as its decimal text, for a select. */
export function int64Text(column: AnyColumn): SQL<string> {
  return sql<string>`CAST(${column} AS TEXT)`;
}

/**
 * `INSERT INTO table (cols…) SELECT … FROM json_each(?)`: many rows in one statement with one
 * bound parameter. `fields` maps each column to a JSON property of the row objects, or to a
 * fixed SQL value.
 */
export function insertFromJson(
  table: SQL,
  fields: readonly (readonly [AnyColumn, string | SQL])[],
  rows: readonly object[],
  onConflict: SQL = sql``,
): SQL {
  const columns = sql.join(
    fields.map(([c]) => name(c)),
    sql`, `,
  );
  const values = sql.join(
    fields.map(([, v]) => (typeof v === "string" ? sql`json_extract(j.value, ${`$.${v}`})` : v)),
    sql`, `,
  );
  // "WHERE true" keeps SQLite from reading ON CONFLICT as part of the SELECT's join.
  return sql`INSERT INTO ${table} (${columns}) SELECT ${values} FROM json_each(${JSON.stringify(rows)}) AS j WHERE true ${onConflict}`;
}

/** Splits rows into chunks so that no bound JSON document gets huge. */
export function chunks<T>(rows: readonly T[], size = 500): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/**
 * `WITH alias AS MATERIALIZED (SELECT fields FROM json_each(?))`: JSON rows as a table for the
 * UPDATE … FROM or INSERT … SELECT that follows, to join on the target's key. Materialized,
 * SQLite loops over these rows and finds each target row by its key; given a derived table
 * instead, it scans the whole target table for every statement (seconds per statement once a
 * table holds tens of thousands of rows).
 */
export function withJsonRows(alias: string, fields: readonly string[], rows: readonly object[]): SQL {
  return sql`WITH ${jsonRowsTable(alias, fields, rows)}`;
}

/** withJsonRows' table without its WITH: `alias AS MATERIALIZED (…)`, one of several (a recursive walk's, say). */
export function jsonRowsTable(alias: string, fields: readonly string[], rows: readonly object[]): SQL {
  const columns = sql.join(
    fields.map((f, i) => sql`json_extract(j.value, ${sql.raw(`'$[${i}]'`)}) AS ${sql.identifier(f)}`),
    sql`, `,
  );
  // Each row as an array in `fields` order: the names are not repeated in every row (a large
  // pass binds megabytes of these), and a field a row lacks is null, as json_extract reads a
  // missing property.
  const values = rows.map((row) => fields.map((f) => (row as Record<string, unknown>)[f] ?? null));
  return sql`${sql.identifier(alias)} AS MATERIALIZED (SELECT ${columns} FROM json_each(${JSON.stringify(values)}) AS j)`;
}

/** A column of a table of JSON rows: `alias."field"`. */
export const ref = (alias: string, field: string): SQL => sql.raw(`${alias}."${field}"`);

/**
 * In an upsert's ON CONFLICT DO UPDATE: reads a field of the JSON row (table `alias`) whose key
 * fields equal the conflicting row's key columns, so a row another request created first takes
 * the same change an UPDATE … FROM `alias` would give it. `keys` pairs each key field with its column.
 */
export function conflictRowField(alias: string, keys: readonly (readonly [field: string, column: AnyColumn])[]) {
  const match = sql.join(
    keys.map(([f, c]) => sql`${ref(alias, f)} = excluded.${name(c)}`),
    sql` AND `,
  );
  return (field: string): SQL => sql`(SELECT ${ref(alias, field)} FROM ${sql.raw(alias)} WHERE ${match})`;
}

/**
 * `(SELECT default AS column, …) AS z`: a new row of `table` as an insert of its key alone
 * would create it (each column at its schema default, or at `values`).
 */
export function zeroedRow(table: SQLiteTable, columns: readonly string[], values: Readonly<Record<string, number>> = {}): SQL {
  const byName = new Map(Object.values(getTableColumns(table)).map((c) => [c.name, c] as const));
  const fields = columns.map((c) => {
    const column = byName.get(c);
    if (!column) throw new Error(`${getTableName(table)} has no column ${c}`);
    const value = c in values ? values[c]! : column.hasDefault ? ((column.default as number | string | null) ?? null) : null;
    // A schema default or a time the pass chose, never input: written into the SQL text to keep bound parameters few.
    const literal = typeof value === "number" ? sql.raw(String(value)) : sql`${value}`;
    // As the column stores it: a REAL column's 0 is 0.0 (integer arithmetic on a stored REAL
    // would not happen in an update; it must not happen here either).
    const typed = value === null ? sql`NULL` : column.columnType === "SQLiteReal" ? sql`CAST(${literal} AS REAL)` : literal;
    return sql`${typed} AS ${col(c)}`;
  });
  return sql`(SELECT ${sql.join(fields, sql`, `)}) AS z`;
}
