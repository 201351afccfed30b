/**
 * The top pages of a board, as the minute cron stores them: one scan of the board in
 * primary-key order (rows read: the board's size, for both orders at once), keeping only the
 * best `pageCount` pages of each order as it goes, so memory holds about twice that many
 * rows whatever the size of the board.
 */
import type { Db } from "../db/client";
import { scanHolders } from "./holder-scan";
import { type HolderKind, LEADERBOARD_ORDERS, type LeaderboardOrder } from "./keys";
import { type HolderRow, type LeaderboardPage, compareKeys, entryOf, sortKey } from "./leaderboard";
import { SNAPSHOT_LIMITS } from "./limits";

/** The best `keep` rows offered, in board order. */
class Best {
  private rows: HolderRow[] = [];
  /** The worst row kept after the last trim: a row not above it can never be kept. */
  private floor: HolderRow | null = null;

  constructor(
    private readonly keep: number,
    private readonly by: LeaderboardOrder,
  ) {}

  private readonly order = (a: HolderRow, b: HolderRow) => compareKeys(sortKey(a, this.by), a.id, sortKey(b, this.by), b.id);

  offer(row: HolderRow): void {
    if (this.floor && this.order(row, this.floor) >= 0) return;
    this.rows.push(row);
    if (this.rows.length >= 2 * this.keep) this.trim();
  }

  private trim(): void {
    this.rows.sort(this.order);
    this.rows.length = Math.min(this.rows.length, this.keep);
    if (this.rows.length === this.keep) this.floor = this.rows.at(-1)!;
  }

  best(): HolderRow[] {
    this.trim();
    return this.rows;
  }
}

/** The top `pageCount` pages of both orders of a board (pages of SNAPSHOT_LIMITS.leaderboardPageSize). */
export async function loadTopPages(
  db: Db,
  projectId: number,
  kind: HolderKind,
  pageCount: number,
): Promise<Record<LeaderboardOrder, LeaderboardPage[]>> {
  const size = SNAPSHOT_LIMITS.leaderboardPageSize;
  const best = LEADERBOARD_ORDERS.map((by) => [by, new Best(size * pageCount, by)] as const);
  let total = 0;
  for await (const chunk of scanHolders(db, projectId, kind)) {
    total += chunk.length;
    for (const row of chunk) for (const [, b] of best) b.offer(row);
  }
  const pagesOf = (by: LeaderboardOrder, rows: HolderRow[]) =>
    Array.from({ length: pageCount }, (_, k) => ({
      total,
      entries: rows.slice(k * size, (k + 1) * size).map((r, i) => entryOf(r, k * size + i + 1, by)),
    }));
  const pages = {} as Record<LeaderboardOrder, LeaderboardPage[]>;
  for (const [by, b] of best) pages[by] = pagesOf(by, b.best());
  return pages;
}
