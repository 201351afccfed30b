import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "../../db/schema";

const TABLES = (Object.values(schema) as unknown[]).flatMap((t) => (is(t, SQLiteTable) ? [getTableName(t)] : []));

/** Undefined when the database answers and holds every table; else what is wrong. */
export async function checkDatabase(d1: D1Database): Promise<string | undefined> {
  const row = await d1
    .prepare(
      "SELECT json_group_array(name) AS present FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(?))",
    )
    .bind(JSON.stringify(TABLES))
    .first<{ present: string }>();
  const present = new Set(JSON.parse(row?.present ?? "[]") as string[]);
  const missing = TABLES.filter((t) => !present.has(t));
  if (missing.length === 0) return undefined;
  const some = missing.slice(0, 5).join(", ") + (missing.length > 5 ? ", …" : "");
  return `missing ${missing.length} of ${TABLES.length} tables (${some}): apply the migrations`;
}
