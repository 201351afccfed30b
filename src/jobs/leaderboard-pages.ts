/**
 * Every leaderboard page below the top ones, published to KV (the minute refresh writes the
 * top SNAPSHOT_LIMITS.leaderboardPagesKept pages). No index ranks a board (each would be a
 * row written per grant), so a board is ranked from one scan (src/snapshots/ranking.ts) and
 * its pages written, at most `budget` KV writes a run (a Worker invocation may do 1,000 KV
 * operations); a board with more pages than that goes on from `next_page` in the next run.
 * A board is due again SNAPSHOT_LIMITS.leaderboardRepublishSeconds after its last whole
 * publication, or at once when it has grown a page since.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { DEFAULT_BINDING, livesHere, projectDatabase } from "../db/project-db";
import { leaderboardPublications, projects } from "../db/schema";
import { chunks } from "../db/sql-helpers";
import type { Env } from "../env";
import { errorText, log } from "../log";
import { HOLDER_KINDS, type HolderKind, LEADERBOARD_ORDERS, type LeaderboardOrder, kvKeys } from "../snapshots/keys";
import { SNAPSHOT_LIMITS } from "../snapshots/limits";
import { type Ranking, loadRankedPage, rankBoard } from "../snapshots/ranking";
import { storedText } from "../snapshots/store";

interface Board {
  readonly projectId: number;
  readonly slug: string;
  readonly kind: HolderKind;
  readonly by: LeaderboardOrder;
  readonly nextPage: number;
  readonly publishedAt: number;
}

export interface PublishReport {
  readonly boards: number;
  readonly written: number;
  readonly failed: number;
}

const PAGE = SNAPSHOT_LIMITS.leaderboardPageSize;
const KEPT = SNAPSHOT_LIMITS.leaderboardPagesKept;
const pagesOf = (holders: number) => Math.ceil(holders / PAGE);

/** The boards of this database's projects that have pages below the top ones and are due, most overdue first. */
async function dueBoards(db: Db, now: number): Promise<Board[]> {
  const [rows, published] = await db.batch([
    db
      .select({ id: projects.id, slug: projects.slug, hosts: projects.hostCount, users: projects.userCount, teams: projects.teamCount })
      .from(projects)
      .where(livesHere),
    db.select().from(leaderboardPublications),
  ]);
  const last = new Map(published.map((p) => [`${p.projectId}/${p.kind}/${p.by}`, p]));
  const due: Board[] = [];
  for (const project of rows) {
    for (const kind of HOLDER_KINDS) {
      if (pagesOf(project[kind]) <= KEPT) continue;
      for (const by of LEADERBOARD_ORDERS) {
        const p = last.get(`${project.id}/${kind}/${by}`);
        const stale =
          !p || now - p.publishedAt >= SNAPSHOT_LIMITS.leaderboardRepublishSeconds || pagesOf(project[kind]) > pagesOf(p.holders);
        if (stale || p.nextPage > 0) {
          due.push({ projectId: project.id, slug: project.slug, kind, by, nextPage: p?.nextPage ?? 0, publishedAt: p?.publishedAt ?? 0 });
        }
      }
    }
  }
  // Publications under way first (their pages are already mixed), then the oldest.
  return due.sort((a, b) => Number(b.nextPage > 0) - Number(a.nextPage > 0) || a.publishedAt - b.publishedAt);
}

/** One database's boards, as far as `budget` KV writes go. */
export async function publishLeaderboards(
  env: Env,
  now: number,
  budget: number = SNAPSHOT_LIMITS.kvWritesPerRun,
  binding: string = DEFAULT_BINDING,
): Promise<PublishReport> {
  const db = projectDatabase(env, binding);
  let left = budget;
  let written = 0;
  let failed = 0;
  let boards = 0;
  // One ranking held at a time: both orders of a board come from the same scan.
  let held = null as { key: string; ranking: Ranking } | null;
  for (const board of await dueBoards(db, now)) {
    if (left <= 0) break;
    const key = `${board.projectId}/${board.kind}`;
    if (held?.key !== key) held = { key, ranking: await rankBoard(db, board.projectId, board.kind) };
    const { ranking } = held;
    const end = pagesOf(ranking.size);
    const first = Math.max(KEPT, board.nextPage);
    const last = Math.min(end, first + left);
    const pages = Array.from({ length: Math.max(0, last - first) }, (_, i) => first + i);
    let failures = 0;
    for (const part of chunks(pages, SNAPSHOT_LIMITS.kvWriteConcurrency)) {
      const loaded = await Promise.all(part.map((n) => loadRankedPage(db, board.projectId, board.kind, ranking, board.by, n)));
      const outcomes = await Promise.allSettled(
        part.map((n, i) => env.KV.put(kvKeys.leaderboardPage(board.slug, board.kind, board.by, n), storedText(loaded[i]!, now))),
      );
      outcomes.forEach((o, i) => {
        if (o.status === "rejected") {
          const key = kvKeys.leaderboardPage(board.slug, board.kind, board.by, part[i]!);
          log("error", { event: "kv_write_failed", key, error: errorText(o.reason) });
        }
      });
      failures += outcomes.filter((o) => o.status === "rejected").length;
    }
    left -= pages.length;
    written += pages.length - failures;
    failed += failures;
    boards++;
    // A failed write keeps the board where it was: the next run writes its pages again.
    if (failures === 0)
      await recordProgress(db, board, last >= end ? { nextPage: 0, publishedAt: now, holders: ranking.size } : { nextPage: last });
  }
  return { boards, written, failed };
}

async function recordProgress(db: Db, board: Board, set: { nextPage: number; publishedAt?: number; holders?: number }): Promise<void> {
  const p = leaderboardPublications;
  await db
    .insert(p)
    .values({ projectId: board.projectId, kind: board.kind, by: board.by, ...set })
    .onConflictDoUpdate({
      target: [p.projectId, p.kind, p.by],
      set: {
        nextPage: set.nextPage,
        publishedAt: set.publishedAt ?? sql`${p.publishedAt}`,
        holders: set.holders ?? sql`${p.holders}`,
      },
    });
}
