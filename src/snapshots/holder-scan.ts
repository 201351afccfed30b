/**
 * A board's holders read in primary-key order, a chunk per query by keyset on (project_id,
 * id): each query reads exactly the rows it returns, so a scan reads the board's size in rows
 * and never holds more than a chunk of them.
 */
import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "../db/client";
import { holderReadSources } from "../db/holder-reads";
import type { HolderKind } from "./keys";
import { type HolderRow, entryColumns } from "./leaderboard";
import { SNAPSHOT_LIMITS } from "./limits";

export async function* scanHolders(
  db: Db,
  projectId: number,
  kind: HolderKind,
  chunk: number = SNAPSHOT_LIMITS.rankingScanChunk,
): AsyncGenerator<HolderRow[]> {
  const t = holderReadSources[kind];
  let after = -Infinity;
  for (;;) {
    const where = after === -Infinity ? eq(t.projectId, projectId) : and(eq(t.projectId, projectId), gt(t.id, after));
    const rows = await db.select(entryColumns(kind)).from(t).where(where).orderBy(asc(t.id)).limit(chunk);
    if (rows.length > 0) yield rows;
    if (rows.length < chunk) return;
    after = rows.at(-1)!.id;
  }
}
