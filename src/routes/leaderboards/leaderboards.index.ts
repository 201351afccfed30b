/**
 * Leaderboards: hosts, users or teams by RAC (decayed to now) or by total credit, in pages
 * of up to 1,000. The cron ranks every board and stores it in KV as pages of 1,000 (the top
 * ones within a minute, the rest on a slower cadence: docs/public-reads.md); an anonymous
 * request reads the one or two pages it spans. With the project's token a request reads its
 * own rows from D1, ranked from a scan after the cursor's entry.
 */
import { access } from "../access";
import { type OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { ApiError, errorResponses } from "../../http/errors";
import { HOLDER_KINDS, type HolderKind, LEADERBOARD_ORDERS, type LeaderboardOrder } from "../../snapshots/keys";
import { type LeaderboardPosition, boardSize } from "../../snapshots/leaderboard";
import { SNAPSHOT_LIMITS } from "../../snapshots/limits";
import { racAt } from "../../snapshots/present";
import { readLeaderboardAfter, readStoredPage } from "../../snapshots/reads";
import { NOT_MODIFIED, snapshotResponse } from "../../snapshots/store";
import { SlugParams, serverNow } from "../common";

const PAGE = SNAPSHOT_LIMITS.leaderboardPageSize;
const DEFAULT_LIMIT = 100;

/** An opaque cursor: the last entry given (its rank, keyset key and id). */
const encodeCursor = (p: LeaderboardPosition) =>
  btoa(JSON.stringify([p.rank, p.key, p.id])).replace(/=+$/, "").replaceAll("+", "-").replaceAll("/", "_");
function decodeCursor(cursor: string): LeaderboardPosition | null {
  try {
    const [rank, key, id, ...extra] = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/"))) as unknown[];
    const whole = (x: unknown, max: number): x is number => Number.isSafeInteger(x) && (x as number) >= 0 && (x as number) <= max;
    if (extra.length > 0 || !whole(rank, 1e9) || !whole(id, Number.MAX_SAFE_INTEGER) || !Number.isFinite(key)) return null;
    return { rank, key: key as number, id };
  } catch {
    return null;
  }
}

const Query = z.object({
  by: z.enum(LEADERBOARD_ORDERS).optional().openapi({ param: { name: "by", in: "query" }, description: "Default expavg_credit (RAC)" }),
  limit: z
    .string()
    .regex(/^[0-9]{1,5}$/, "a whole number")
    .transform(Number)
    .pipe(z.number().int().min(1).max(PAGE))
    .optional()
    .openapi({ param: { name: "limit", in: "query" }, description: `1 to ${PAGE} (default ${DEFAULT_LIMIT})`, example: "100" }),
  cursor: z
    .string()
    .max(128)
    .refine((c) => decodeCursor(c) !== null, "not a cursor this API gave out")
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "next_cursor of the previous page" }),
});

const EntrySchema = z
  .object({
    rank: z.number().int(),
    id: z.number().int(),
    name: z.string().nullable(),
    total_credit: z.number(),
    expavg_credit: z.number(),
    expavg_time: z.number(),
    recent_average_credit: z.number().openapi({ description: "expavg_credit decayed to as_of" }),
  })
  .openapi("LeaderboardEntry");

function mountKind(app: OpenAPIHono<AppEnv>, kind: HolderKind): void {
  const route = createRoute({
    method: "get",
    path: `/v1/projects/{slug}/top/${kind}`,
    tags: ["Credit"],
    summary: `The project's ${kind} ranked by RAC (decayed to now) or by total credit`,
    ...access("publicProject"),
    request: { params: SlugParams, query: Query },
    responses: {
      200: {
        description: "One page of the leaderboard",
        content: {
          "application/json": {
            schema: z.object({
              [kind]: z.array(EntrySchema),
              total: z.number().int().openapi({ description: `How many ${kind} the whole leaderboard has` }),
              next_cursor: z.string().nullable(),
              as_of: z.number(),
              snapshot_time: z.number(),
            }),
          },
        },
      },
      ...NOT_MODIFIED,
      ...errorResponses(400, 401, 403, 404, 503),
    },
  });
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const by = q.by ?? "expavg_credit";
    const limit = q.limit ?? DEFAULT_LIMIT;
    const position = q.cursor === undefined ? null : decodeCursor(q.cursor)!;
    const offset = position?.rank ?? 0;
    const now = serverNow();
    const read = await readEntries(c, kind, by, position && { cursor: q.cursor!, position }, offset, limit);
    const last = read.entries.at(-1);
    const body = {
      [kind]: read.entries.map(({ sort_key: _key, ...e }) => ({ ...e, recent_average_credit: racAt(e, now) })),
      total: read.total,
      next_cursor: last && last.rank < read.total ? encodeCursor({ rank: last.rank, key: last.sort_key, id: last.id }) : null,
      as_of: now,
      snapshot_time: read.takenAt,
    };
    return snapshotResponse(c, [...read.versions, `${offset}`, `${limit}`], body) as never;
  });
}

/**
 * The stored pages a request spans when all are in KV. Else, with the project's token or on a
 * board of one page, its own rows ranked by D1; past the board's end, no entries; otherwise
 * 503 until the cron has published the page (an anonymous read never scans a large board).
 */
async function readEntries(
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
      throw new ApiError(503, "not_published", "This leaderboard page is not published yet: retry shortly", undefined, { "Retry-After": retry });
    }
  }
  const read = await readLeaderboardAfter(c, c.var.project, kind, by, after, limit);
  return { entries: read.data.entries, total: read.data.total, takenAt: read.takenAt, versions: [read.version] };
}

export function mountLeaderboards(app: OpenAPIHono<AppEnv>): void {
  for (const kind of HOLDER_KINDS) mountKind(app, kind);
}
