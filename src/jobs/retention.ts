/**
 * Retention (docs/storage.md): deletes what is past its window, a bounded number of chunks
 * per table and run, so the database stays flat while totals, RAC and history are untouched
 * (they never read these rows); and rolls old daily history up into months (history-rollup.ts).
 *
 * Exactly-once after a purge: a result row is purged once decided before `cutoff`, so it was
 * received (and sent) before cutoff + clock skew; the same batch first raises the project's
 * horizon to that time, and a pass naming a result sent before the horizon is refused (410).
 * A credited workunit's results were all sent before it was credited, so its late results
 * are refused by the same rule once its row is gone.
 *
 * Trickle messages carry no time of their own, only an id that grows with time: the same
 * batch raises the project's trickle horizon over the ids it deletes, and a message at or
 * below it that is not stored is refused (410).
 */
import { SECONDS_PER_DAY } from "../credit/constants";
import { MAX_CLOCK_SKEW_SECONDS, PURGE_CHUNK_ROWS, PURGE_MAX_CHUNKS } from "../config";
import { runBatch } from "../db/batch";
import type { Db } from "../db/client";
import {
  purgeAmRpcs,
  purgeAudit,
  purgeResults,
  purgeTrickles,
  purgeWorkunits,
  raiseHorizon,
  recordPurgedWorkunits,
  raiseTrickleHorizon,
} from "../db/retention";
import { and, gt, not } from "drizzle-orm";
import { projects } from "../db/schema";
import { livesHere } from "../db/project-db";
import type { Settings } from "../env";
import { rollUpProject } from "./history-rollup";

export interface RetentionSettings {
  readonly auditDays: number;
  readonly amRpcDays: number;
  readonly chunkRows: number;
  readonly maxChunks: number;
}

/** The deployment's windows (AUDIT_RETENTION_DAYS, AM_RPC_RETENTION_DAYS, parsed by src/env-vars.ts) and the purge's budget. */
export function retentionSettings(settings: Pick<Settings, "AUDIT_RETENTION_DAYS" | "AM_RPC_RETENTION_DAYS">): RetentionSettings {
  return {
    auditDays: settings.AUDIT_RETENTION_DAYS,
    amRpcDays: settings.AM_RPC_RETENTION_DAYS,
    chunkRows: PURGE_CHUNK_ROWS,
    maxChunks: PURGE_MAX_CHUNKS,
  };
}

export interface PurgeCounts {
  results: number;
  workunits: number;
  trickles: number;
  audit: number;
  amRpcs: number;
  /** Day history rows folded into monthly buckets. */
  historyDays: number;
}

/** Runs one statement chunk after chunk until it deletes less than a chunk or the run's budget is spent. */
async function drain(db: Db, settings: RetentionSettings, batchOf: (limit: number) => Parameters<typeof runBatch>[1]): Promise<number[]> {
  const totals: number[] = [];
  for (let i = 0; i < settings.maxChunks; i++) {
    const out = await runBatch(db, batchOf(settings.chunkRows));
    out.forEach((r, k) => (totals[k] = (totals[k] ?? 0) + (r.meta.changes ?? 0)));
    if (out.every((r) => (r.meta.changes ?? 0) < settings.chunkRows)) break;
  }
  return totals;
}

/**
 * One project's results, workunits and trickle messages decided (paid) before its window. The window is measured on
 * the project's own clock (`clock`: the time of its latest grant, the project's expavg_time),
 * never past the server's: a project backfilling years of history posts passes whose `now`
 * lies in the past, and the results it posts next were sent shortly before those passes, not
 * before the server's "now minus the window", so they must not be refused.
 *
 * Until its first grant (`credited` false) a project's clock is only its creation time, which
 * says nothing about the history it will post: no result or workunit is purged and no horizon
 * is set, so a backfill of any age can start however long after creation (and however many
 * retention runs) it comes. Error outcomes posted before the first grant wait for it.
 */
export async function purgeProject(
  db: Db,
  project: { id: number; resultRetentionDays: number; clock: number; credited: boolean },
  now: number,
  settings: RetentionSettings,
) {
  const cutoff = Math.min(now, project.clock) - project.resultRetentionDays * SECONDS_PER_DAY;
  const [, trickles = 0, , results = 0, , , , workunits = 0] = await drain(db, settings, (limit) => [
    // Each horizon (and the purged workunits' record) first, in the same transaction: it refuses what the deletes after it forget.
    raiseTrickleHorizon(project.id, cutoff, limit),
    purgeTrickles(project.id, cutoff, limit),
    ...(project.credited
      ? [
          raiseHorizon(project.id, cutoff + MAX_CLOCK_SKEW_SECONDS),
          purgeResults(project.id, cutoff, limit),
          ...recordPurgedWorkunits(project.id, cutoff, limit),
          purgeWorkunits(project.id, cutoff, limit),
        ]
      : []),
  ]);
  return { results, workunits, trickles };
}

export async function runRetention(db: Db, now: number, settings: RetentionSettings): Promise<PurgeCounts> {
  const counts: PurgeCounts = { results: 0, workunits: 0, trickles: 0, audit: 0, amRpcs: 0, historyDays: 0 };
  const rows = await db
    .select({
      id: projects.id,
      resultRetentionDays: projects.resultRetentionDays,
      dailyHistoryDays: projects.dailyHistoryDays,
      historyRolledBefore: projects.historyRolledBefore,
      clock: projects.expavgTime,
      createdAt: projects.createdAt,
    })
    .from(projects)
    .where(livesHere);
  for (const project of rows) {
    // Creation sets expavg_time; the first grant moves it to that pass's `now`.
    const purged = await purgeProject(db, { ...project, credited: project.clock !== project.createdAt }, now, settings);
    counts.results += purged.results;
    counts.workunits += purged.workunits;
    counts.trickles += purged.trickles;
    counts.historyDays += await rollUpProject(db, project, now, settings);
  }
  // A history database holds copies of the rows of projects that keep their history there
  // (src/db/history-queue.ts): they roll their months up here, on the copy's clock.
  const copies = await db
    .select({
      id: projects.id,
      dailyHistoryDays: projects.dailyHistoryDays,
      historyRolledBefore: projects.historyRolledBefore,
      clock: projects.expavgTime,
    })
    .from(projects)
    .where(and(not(livesHere), gt(projects.historyMovedThrough, 0)));
  for (const copy of copies) counts.historyDays += await rollUpProject(db, copy, now, settings);
  [counts.audit = 0] = await drain(db, settings, (limit) => [purgeAudit(now - settings.auditDays * SECONDS_PER_DAY, limit)]);
  [counts.amRpcs = 0] = await drain(db, settings, (limit) => [purgeAmRpcs(now - settings.amRpcDays * SECONDS_PER_DAY, limit)]);
  return counts;
}

export function describePurge(c: PurgeCounts): string {
  return `purged ${c.results} results, ${c.workunits} workunits, ${c.trickles} trickle messages, ${c.audit} audit rows, ${c.amRpcs} account-manager RPCs; rolled ${c.historyDays} history days into months`;
}
