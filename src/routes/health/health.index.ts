/**
 * GET /health: whether the service can work, cheap enough to poll every minute: one tiny query
 * per bound D1 database (does it answer, and does it hold every table of src/db/schema.ts) and
 * one KV get. 200 when all answer; 503 naming each that failed.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "../../db/schema";
import { databaseBindings } from "../../db/project-db";
import type { AppEnv } from "../../env";
import { route } from "./health.routes";

const TABLES = (Object.values(schema) as unknown[]).flatMap((t) => (is(t, SQLiteTable) ? [getTableName(t)] : []));

/** Undefined when the database answers and holds every table; else what is wrong. */
async function checkDatabase(d1: D1Database): Promise<string | undefined> {
  const row = await d1
    .prepare("SELECT json_group_array(name) AS present FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(?))")
    .bind(JSON.stringify(TABLES))
    .first<{ present: string }>();
  const present = new Set(JSON.parse(row?.present ?? "[]") as string[]);
  const missing = TABLES.filter((t) => !present.has(t));
  if (missing.length === 0) return undefined;
  const some = missing.slice(0, 5).join(", ") + (missing.length > 5 ? ", …" : "");
  return `missing ${missing.length} of ${TABLES.length} tables (${some}): apply the migrations`;
}

const noAnswer = (e: unknown) => `no answer: ${(e instanceof Error ? e.message : String(e)).slice(0, 200)}`;

const check = (name: string, error: string | undefined) => ({ name, ok: error === undefined, ...(error === undefined ? {} : { error }) });

export function mountHealth(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const bound = c.env as unknown as Record<string, D1Database>;
    const checks = await Promise.all([
      ...databaseBindings(c.env).map(async (name) => check(name, await checkDatabase(bound[name]!).catch(noAnswer))),
      c.env.KV.get("health").then(
        () => check("KV", undefined),
        (e: unknown) => check("KV", noAnswer(e)),
      ),
    ]);
    const ok = checks.every((x) => x.ok);
    for (const x of checks) if (!x.ok) console.error(`health: ${x.name}: ${x.error}`);
    return c.json({ ok, checks }, ok ? 200 : 503);
  });
}
