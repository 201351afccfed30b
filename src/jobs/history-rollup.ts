/**
 * The history roll-up (docs/storage.md), run by the hourly retention job: day buckets of whole
 * months older than a project's daily span move into monthly buckets, in bounded chunks.
 *
 * Exactly once: each chunk adds its day rows to their months and deletes them in one batch, so
 * a crash or a cut-short run leaves every row either still a day or already in its month,
 * never both or neither. The same batch first raises the project's `history_monthly_before`,
 * and reads fold every bucket before it into its month, so they show the same whether the
 * roll-up has run, half run or not yet. A pass that later writes a day before it (a backfill
 * into an old month) writes a day row as always; reads fold it in, and the next roll-up, when
 * the boundary moves on, adds it to its month.
 */
import { dayOf } from "../credit/history";
import { rollUpBoundary } from "../credit/history-months";
import { runBatch, runNamedBatch } from "../db/batch";
import type { Db } from "../db/client";
import { CURSOR_START, type RollUpCursor, chunkEnd, deleteChunk, foldChunk, markRolledUp, raiseMonthlyBefore } from "../db/history-rollup";

export interface RollUpProject {
  readonly id: number;
  readonly dailyHistoryDays: number;
  /** The project's clock (expavg_time): a backfill rolls up behind the point it has reached. */
  readonly clock: number;
  readonly historyRolledBefore: number;
}

/** Rolls up one project's due months; returns the day rows folded into months. */
export async function rollUpProject(
  db: Db,
  project: RollUpProject,
  now: number,
  settings: { readonly chunkRows: number; readonly maxChunks: number },
): Promise<number> {
  const boundary = rollUpBoundary(dayOf(Math.min(now, project.clock)), project.dailyHistoryDays);
  if (boundary <= project.historyRolledBefore) return 0;
  let from: RollUpCursor = CURSOR_START;
  let folded = 0;
  for (let i = 0; i < settings.maxChunks; i++) {
    const args = [project.id, boundary, from, settings.chunkRows] as const;
    const { end, deleted } = await runNamedBatch(db, {
      raised: raiseMonthlyBefore(project.id, boundary),
      end: chunkEnd(...args),
      folded: foldChunk(...args),
      deleted: deleteChunk(...args),
    });
    const rows = deleted.meta.changes ?? 0;
    folded += rows;
    if (rows < settings.chunkRows) {
      await runBatch(db, [markRolledUp(project.id, boundary)]);
      break;
    }
    const last = (end.results as { subject: string; entityId: number }[])[0]!;
    from = { subject: last.subject, entityId: last.entityId };
  }
  return folded;
}
