/**
 * Leaderboard pages. Ranking by RAC decays every pair to `now` first; since all pairs decay at
 * the same rate, the order stays right at any later time, so a stored page never goes out
 * of order, only its RAC figures are decayed again when read.
 */
import { type SQL, asc, count, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { hosts, teams, users } from "../db/schema";
import { name } from "../db/sql-helpers";
import { decayedRecentAverageTwin } from "../db/stat-updates";
import type { HolderKind, LeaderboardOrder } from "./keys";
import { SNAPSHOT_LIMITS } from "./limits";

export interface LeaderboardEntry {
  readonly rank: number;
  readonly id: number;
  readonly name: string | null;
  readonly total_credit: number;
  readonly expavg_credit: number;
  readonly expavg_time: number;
}

export interface LeaderboardPage {
  /** How many hosts, users or teams the whole leaderboard has. */
  readonly total: number;
  readonly entries: readonly LeaderboardEntry[];
}

const tables = { hosts, users, teams } as const;

/** `pageCount` pages from `firstPage` on, in one query; pages past the end are empty. */
export async function loadLeaderboardPages(
  db: Db,
  projectId: number,
  kind: HolderKind,
  by: LeaderboardOrder,
  firstPage: number,
  pageCount: number,
  now: number,
): Promise<LeaderboardPage[]> {
  const t = tables[kind];
  const size = SNAPSHOT_LIMITS.leaderboardPageSize;
  const order: SQL =
    by === "total_credit"
      ? desc(t.totalCredit)
      : sql`${decayedRecentAverageTwin.sql({ avg: name(t.expavgCredit), time: name(t.expavgTime) }, sql`${now}`)} DESC`;
  const [rows, [counted]] = await db.batch([
    db
      .select({ id: t.id, name: t.name, total: t.totalCredit, avg: t.expavgCredit, time: t.expavgTime })
      .from(t)
      .where(eq(t.projectId, projectId))
      .orderBy(order, asc(t.id))
      .limit(size * pageCount)
      .offset(firstPage * size),
    db.select({ n: count() }).from(t).where(eq(t.projectId, projectId)),
  ]);
  const entries = rows.map((r, i) => ({
    rank: firstPage * size + i + 1,
    id: r.id,
    name: r.name,
    total_credit: r.total,
    expavg_credit: r.avg,
    expavg_time: r.time,
  }));
  return Array.from({ length: pageCount }, (_, k) => ({ total: counted?.n ?? 0, entries: entries.slice(k * size, (k + 1) * size) }));
}

export async function loadLeaderboardPage(
  db: Db,
  projectId: number,
  kind: HolderKind,
  by: LeaderboardOrder,
  page: number,
  now: number,
): Promise<LeaderboardPage> {
  const [only] = await loadLeaderboardPages(db, projectId, kind, by, page, 1, now);
  return only!;
}
