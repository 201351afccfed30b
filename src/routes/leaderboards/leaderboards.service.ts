import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { ApiError } from "../../http/errors";
import type { HolderKind, LeaderboardOrder } from "../../snapshots/keys";
import { type LeaderboardPosition, boardSize } from "../../snapshots/leaderboard";
import { SNAPSHOT_LIMITS } from "../../snapshots/limits";
import { readLeaderboardAfter, readStoredPage } from "../../snapshots/reads";
import { serverNow } from "../common";
import { PAGE } from "./leaderboards.schemas";

/**
 * The stored pages a request spans when all are in KV. Else, with the project's token or on a
 * board of one page, its own rows ranked by D1; past the board's end, no entries; otherwise
 * 503 until the cron has published the page (an anonymous read never scans a large board).
 */
export async function readEntries(
  c: Context<AppEnv>,
  kind: HolderKind,
  by: LeaderboardOrder,
  after: { cursor: string; position: LeaderboardPosition } | null,
  offset: number,
  limit: number,
) {
  if (!c.var.fresh) {
    const spanned = [...new Set([Math.floor(offset / PAGE), Math.floor((offset + limit - 1) / PAGE)])];
    const read = await Promise.all(spanned.map((n) => readStoredPage(c, c.var.project, kind, by, n)));
    const pages = read.filter((p) => p !== null);
    // A page past the end of the board a stored page ranked is not missing: it does not exist.
    const end = pages[0]?.data.total;
    if (spanned.every((n, i) => read[i] !== null || (end !== undefined && n * PAGE >= end))) {
      return {
        entries: pages.flatMap((p) => p.data.entries).filter((e) => e.rank > offset && e.rank <= offset + limit),
        total: end!,
        takenAt: Math.min(...pages.map((p) => p.takenAt)),
        versions: pages.map((p) => p.version),
      };
    }
    const total = await boardSize(c.var.db, c.var.project.id, kind);
    if (offset >= total) return { entries: [], total, takenAt: serverNow(), versions: [`end-${total}`] };
    if (total > SNAPSHOT_LIMITS.leaderboardScanOnMiss) {
      const retry = `${SNAPSHOT_LIMITS.maxAgeSeconds}`;
      throw new ApiError(503, "not_published", "This leaderboard page is not published yet: retry shortly", undefined, {
        "Retry-After": retry,
      });
    }
  }
  const read = await readLeaderboardAfter(c, c.var.project, kind, by, after, limit);
  return { entries: read.data.entries, total: read.data.total, takenAt: read.takenAt, versions: [read.version] };
}
