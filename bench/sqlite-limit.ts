/**
 * The storage limit: the same passes through the Worker's own pass code (snapshot read,
 * engine, one write transaction per pass), in one Node process on better-sqlite3, with no
 * HTTP, no workerd and no D1 in between.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { database } from "../src/db/client";
import { ingestPass } from "../src/routes/passes/passes.service";
import { openSqlite } from "./d1-on-sqlite";
import { APPS, type PassBody, versions } from "./workload";

export interface LimitRow {
  readonly size: number;
  readonly passes: number;
  readonly results: number;
  /** Wall time of the whole pass code (read, engine, write). */
  readonly seconds: number;
  /** Time inside the write transactions alone: the storage's share. */
  readonly writeSeconds: number;
  readonly statementsPerWorkunit: number;
  readonly statementsPerPass: number;
}

export function openLimitDb(migrationsDir: string) {
  const sqlite = openSqlite(join(mkdtempSync(join(tmpdir(), "cobblestone-limit-")), "limit.sqlite"), migrationsDir);
  const db = sqlite.raw;
  db.prepare("INSERT INTO projects (id, slug, name, created_at, expavg_time) VALUES (1, 'bench', 'Bench', 0, 0)").run();
  APPS.forEach((a, i) => db.prepare("INSERT INTO apps (project_id, id, name) VALUES (1, ?, ?)").run(i + 1, a.name));
  for (const v of versions()) {
    db.prepare("INSERT INTO app_versions (project_id, id, app_id, platform, plan_class, version_num) VALUES (1, ?, ?, ?, ?, ?)").run(
      v.id,
      APPS.findIndex((a) => a.name === v.app) + 1,
      v.platform,
      v.plan_class,
      v.version_num,
    );
  }
  return sqlite;
}

export async function runLimit(sqlite: ReturnType<typeof openLimitDb>, size: number, bodies: Iterable<PassBody>): Promise<LimitRow> {
  const db = database(sqlite.d1);
  const before = { ...sqlite.stats };
  let passes = 0;
  let results = 0;
  const start = performance.now();
  for (const body of bodies) {
    await ingestPass(db, 1, body.now, body as never);
    passes++;
    results += body.workunits.reduce((n, w) => n + w.results.length, 0);
  }
  const seconds = (performance.now() - start) / 1000;
  const statements = sqlite.stats.statements - before.statements;
  return {
    size,
    passes,
    results,
    seconds,
    writeSeconds: (sqlite.stats.writeMs - before.writeMs) / 1000,
    statementsPerWorkunit: statements / (passes * size),
    statementsPerPass: statements / passes,
  };
}
