/**
 * Leaderboard pages and entries. Boards rank by total_credit, or by rac_rank for RAC (the
 * virtual column in schema.ts, computed alike by users_now, that orders exactly like RAC
 * decayed to any time), highest first, ties by id. No index holds either key (each would be a row written per grant), so
 * the public pages are ranked by the cron from scans (top-pages.ts, ranking.ts); what this
 * file reads from D1 is for the project's own token and for boards of one page.
 */
import { and, asc, desc, eq, gt, lt, or } from "drizzle-orm";
import type { Db } from "../db/client";
import { holderReadSources } from "../db/holder-reads";
import { projects } from "../db/schema";
import type { HolderKind, LeaderboardOrder } from "./keys";

export interface LeaderboardEntry {
  readonly rank: number;
  readonly id: number;
  readonly name: string | null;
  readonly total_credit: number;
  readonly expavg_credit: number;
  readonly expavg_time: number;
  /** The ranking key (total_credit or rac_rank) as D1 computed it: what the next cursor carries. */
  readonly sort_key: number;
}

export interface LeaderboardPage {
  /** How many hosts, users or teams the whole leaderboard has (when it was ranked). */
  readonly total: number;
  readonly entries: readonly LeaderboardEntry[];
}

/** Where a page starts: after this entry (null: at the top). */
export interface LeaderboardPosition {
  readonly rank: number;
  readonly key: number;
  readonly id: number;
}

const counts = { hosts: projects.hostCount, users: projects.userCount, teams: projects.teamCount } as const;

/** The columns an entry is made of. */
export function entryColumns(kind: HolderKind) {
  const t = holderReadSources[kind];
  return { id: t.id, name: t.name, total: t.totalCredit, avg: t.expavgCredit, time: t.expavgTime, racRank: t.racRank };
}
export interface HolderRow {
  readonly id: number;
  readonly name: string | null;
  readonly total: number;
  readonly avg: number;
  readonly time: number;
  readonly racRank: number | null;
}

export const sortKey = (row: HolderRow, by: LeaderboardOrder): number => (by === "total_credit" ? row.total : row.racRank!);

/** Board order: negative when `a` ranks above `b` (higher key, then lower id). */
export function compareKeys(aKey: number, aId: number, bKey: number, bId: number): number {
  return aKey > bKey ? -1 : aKey < bKey ? 1 : aId - bId;
}

export function entryOf(row: HolderRow, rank: number, by: LeaderboardOrder): LeaderboardEntry {
  return {
    rank,
    id: row.id,
    name: row.name,
    total_credit: row.total,
    expavg_credit: row.avg,
    expavg_time: row.time,
    sort_key: sortKey(row, by),
  };
}

/** The board's size from the project row (kept by insert triggers): one row read. */
export async function boardSize(db: Db, projectId: number, kind: HolderKind): Promise<number> {
  const [row] = await db.select({ n: counts[kind] }).from(projects).where(eq(projects.id, projectId));
  return row?.n ?? 0;
}

/**
 * Up to `limit` entries after `after`, and the total from the project row, by a scan of the
 * board (no index): rows read up to twice the board's size (the scan and the sort of what is
 * below `after`) + 1.
 */
export async function loadLeaderboardAfter(
  db: Db,
  projectId: number,
  kind: HolderKind,
  by: LeaderboardOrder,
  after: LeaderboardPosition | null,
  limit: number,
): Promise<LeaderboardPage> {
  const t = holderReadSources[kind];
  const key = by === "total_credit" ? t.totalCredit : t.racRank;
  const ofProject = eq(t.projectId, projectId);
  const total = db.select({ n: counts[kind] }).from(projects).where(eq(projects.id, projectId));
  const below = after ? and(ofProject, or(lt(key, after.key), and(eq(key, after.key), gt(t.id, after.id)))) : ofProject;
  const rows = db.select(entryColumns(kind)).from(t).where(below).orderBy(desc(key), asc(t.id)).limit(limit);
  const [[counted], page] = await db.batch([total, rows]);
  const start = after?.rank ?? 0;
  return { total: counted?.n ?? 0, entries: page.map((r, i) => entryOf(r, start + i + 1, by)) };
}
