import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";

/** The database handle every query takes: drizzle over the D1 binding. */
export type Db = DrizzleD1Database<Record<string, never>> & { $client: D1Database };

export function database(d1: D1Database): Db {
  return drizzle(d1);
}
