/**
 * The minute job that moves finished history days into the history databases of the projects
 * that have them (src/db/history-queue.ts; docs/storage.md), and the hourly per-app credit
 * fold (src/db/app-credit-queue.ts). Both work in bounded chunks per project and run; what is
 * left waits for the next run.
 */
import { and, isNotNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { foldAppCredit } from "../db/app-credit-queue";
import { parseHistoryDatabases } from "../db/history-databases";
import { moveHistory } from "../db/history-queue";
import { livesHere, projectDatabase } from "../db/project-db";
import { projects } from "../db/schema";

/** Queue rows (passes) per batch, and batches per project and run. */
export const QUEUE_CHUNK_ROWS = 200;
const QUEUE_MAX_CHUNKS = 50;

/** Moves the queued history of every project in `db` (its ledger) that has history databases. */
export async function moveAllHistory(env: object, db: Db, binding: string): Promise<{ passes: number; buckets: number }> {
  const rows = await db
    .select({
      id: projects.id,
      slug: projects.slug,
      name: projects.name,
      createdAt: projects.createdAt,
      dailyHistoryDays: projects.dailyHistoryDays,
      historyDatabases: projects.historyDatabases,
    })
    .from(projects)
    .where(and(livesHere, isNotNull(projects.historyDatabases)));
  const total = { passes: 0, buckets: 0 };
  for (const p of rows) {
    const targets = parseHistoryDatabases(p.historyDatabases);
    const copy = { id: p.id, slug: p.slug, name: p.name, createdAt: p.createdAt, dailyHistoryDays: p.dailyHistoryDays, ledger: binding };
    for (let i = 0; i < QUEUE_MAX_CHUNKS; i++) {
      const moved = await moveHistory(db, copy, targets, (b) => projectDatabase(env, b), QUEUE_CHUNK_ROWS);
      total.passes += moved.passes;
      total.buckets += moved.buckets;
      if (moved.passes < QUEUE_CHUNK_ROWS) break;
    }
  }
  return total;
}

/** Folds the queued per-app credit of every project that lives in `db`. */
export async function foldAllAppCredit(db: Db): Promise<{ passes: number; rows: number }> {
  const rows = await db.select({ id: projects.id }).from(projects).where(livesHere);
  const total = { passes: 0, rows: 0 };
  for (const p of rows) {
    for (let i = 0; i < QUEUE_MAX_CHUNKS; i++) {
      const folded = await foldAppCredit(db, p.id, QUEUE_CHUNK_ROWS);
      total.passes += folded.passes;
      total.rows += folded.rows;
      if (folded.passes < QUEUE_CHUNK_ROWS) break;
    }
  }
  return total;
}
