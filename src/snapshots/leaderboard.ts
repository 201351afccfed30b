/**
 * Leaderboard pages, read by keyset on the indexed sort key: total_credit, or rac_rank for RAC
 * (the generated column in schema.ts that orders exactly like RAC decayed to any time), so a
 * page reads its own rows and never the rows before it. Ties go by id.
 */
import { and, asc, desc, eq, gt, lt } from "drizzle-orm";
import type { Db } from "../db/client";
import { hosts, projects, teams, users } from "../db/schema";
import type { HolderKind, LeaderboardOrder } from "./keys";
import { SNAPSHOT_LIMITS } from "./limits";

export interface LeaderboardEntry {
  readonly rank: number;
  readonly id: number;
  readonly name: string | null;
  readonly total_credit: number;
  readonly expavg_credit: number;
  readonly expavg_time: number;
  /** The keyset key (total_credit or rac_rank) as D1 computed it: what the next cursor carries. */
  readonly sort_key: number;
}

export interface LeaderboardPage {
  /** How many hosts, users or teams the whole leaderboard has. */
  readonly total: number;
  readonly entries: readonly LeaderboardEntry[];
}

/** Where a page starts: after this entry (null: at the top). */
export interface LeaderboardPosition {
  readonly rank: number;
  readonly key: number;
  readonly id: number;
}

const tables = { hosts, users, teams } as const;
const counts = { hosts: projects.hostCount, users: projects.userCount, teams: projects.teamCount } as const;

/**
 * Up to `limit` entries after `after`, and the total from the project row. Rows read: at most
 * 2·limit + 1 (the rest of `after`'s tie, the entries below it, the project row).
 */
export async function loadLeaderboardAfter(
  db: Db,
  projectId: number,
  kind: HolderKind,
  by: LeaderboardOrder,
  after: LeaderboardPosition | null,
  limit: number,
): Promise<LeaderboardPage> {
  const t = tables[kind];
  const key = by === "total_credit" ? t.totalCredit : t.racRank;
  const columns = { id: t.id, name: t.name, total: t.totalCredit, avg: t.expavgCredit, time: t.expavgTime, racRank: t.racRank };
  const ofProject = eq(t.projectId, projectId);
  const total = db.select({ n: counts[kind] }).from(projects).where(eq(projects.id, projectId));
  // Two index seeks, not one OR: the rest of the tie (same key, higher id), then the keys below.
  const rest = after
    ? db.select(columns).from(t).where(and(ofProject, eq(key, after.key), gt(t.id, after.id))).orderBy(asc(t.id)).limit(limit)
    : null;
  const below = db
    .select(columns)
    .from(t)
    .where(after ? and(ofProject, lt(key, after.key)) : ofProject)
    .orderBy(desc(key), asc(t.id))
    .limit(limit);
  const [[counted], tie, lower] = rest ? await db.batch([total, rest, below]) : await db.batch([total, below]).then(([n, b]) => [n, [], b] as const);
  const start = after?.rank ?? 0;
  const entries = [...tie, ...lower].slice(0, limit).map((r, i) => ({
    rank: start + i + 1,
    id: r.id,
    name: r.name,
    total_credit: r.total,
    expavg_credit: r.avg,
    expavg_time: r.time,
    sort_key: by === "total_credit" ? r.total : r.racRank!,
  }));
  return { total: counted?.n ?? 0, entries };
}

/** The top `pageCount` stored pages (the cron's), in one keyset read from the top. */
export async function loadLeaderboardPages(
  db: Db,
  projectId: number,
  kind: HolderKind,
  by: LeaderboardOrder,
  pageCount: number,
): Promise<LeaderboardPage[]> {
  const size = SNAPSHOT_LIMITS.leaderboardPageSize;
  const { total, entries } = await loadLeaderboardAfter(db, projectId, kind, by, null, size * pageCount);
  return Array.from({ length: pageCount }, (_, k) => ({ total, entries: entries.slice(k * size, (k + 1) * size) }));
}
