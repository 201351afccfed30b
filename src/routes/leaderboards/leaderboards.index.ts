/**
 * Leaderboards: hosts, users or teams by RAC (decayed to now) or by total credit, in pages
 * of up to 1,000. The cron ranks every board and stores it in KV as pages of 1,000 (the top
 * ones within a minute, the rest on a slower cadence: docs/public-reads.md); an anonymous
 * request reads the one or two pages it spans. With the project's token a request reads its
 * own rows from D1, ranked from a scan after the cursor's entry.
 */
import { createRouter } from "../../http/router";
import type { HolderKind } from "../../snapshots/keys";
import type { LeaderboardPosition } from "../../snapshots/leaderboard";
import { racAt } from "../../snapshots/present";
import { setCacheValidators } from "../../snapshots/store";
import type { AppRouteHandler } from "../route-handler";
import { serverNow } from "../common";
import { decodeCursor, DEFAULT_LIMIT } from "./leaderboards.schemas";
import { topRoute } from "./leaderboards.routes";
import { readEntries } from "./leaderboards.service";

/** An opaque cursor: the last entry given (its rank, keyset key and id). */
const encodeCursor = (p: LeaderboardPosition) =>
  btoa(JSON.stringify([p.rank, p.key, p.id]))
    .replace(/=+$/, "")
    .replaceAll("+", "-")
    .replaceAll("/", "_");

/** One kind's leaderboard. */
function topRouter<K extends HolderKind>(kind: K) {
  const route = topRoute(kind);
  const top: AppRouteHandler<typeof route> = async (c) => {
    const q = c.req.valid("query");
    const by = q.by ?? "expavg_credit";
    const limit = q.limit ?? DEFAULT_LIMIT;
    const position = q.cursor === undefined ? null : decodeCursor(q.cursor)!;
    const offset = position?.rank ?? 0;
    const now = serverNow();
    const read = await readEntries(c, kind, by, position && { cursor: q.cursor!, position }, offset, limit);
    if (setCacheValidators(c, [...read.versions, `${offset}`, `${limit}`])) return c.body(null, 304);
    const last = read.entries.at(-1);
    const body = {
      [kind]: read.entries.map(({ sort_key: _key, ...e }) => ({ ...e, recent_average_credit: racAt(e, now) })),
      total: read.total,
      next_cursor: last && last.rank < read.total ? encodeCursor({ rank: last.rank, key: last.sort_key, id: last.id }) : null,
      as_of: now,
      snapshot_time: read.takenAt,
    };
    return c.json(body, 200);
  };
  return createRouter().openapi(route, top);
}

/** The kinds in HOLDER_KINDS' order, one by one so that the router's type keeps each kind's route. */
export const leaderboardsRouter = createRouter()
  .route("/", topRouter("hosts"))
  .route("/", topRouter("users"))
  .route("/", topRouter("teams"));
