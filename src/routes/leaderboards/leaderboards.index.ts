/**
 * Leaderboards: hosts, users or teams by RAC (decayed to now) or by total credit, in pages
 * of up to 1,000. Stored in KV as pages of 1,000; a request reads the one or two it spans.
 */
import { type OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { errorResponses } from "../../http/errors";
import { HOLDER_KINDS, type HolderKind, LEADERBOARD_ORDERS, kvKeys } from "../../snapshots/keys";
import { type LeaderboardPage, loadLeaderboardPage } from "../../snapshots/leaderboard";
import { SNAPSHOT_LIMITS } from "../../snapshots/limits";
import { racAt } from "../../snapshots/present";
import { publicRead } from "../../snapshots/public-project";
import { NOT_MODIFIED, type SnapshotRead, readThrough, snapshotResponse } from "../../snapshots/store";
import { SlugParams, serverNow } from "../common";

const PAGE = SNAPSHOT_LIMITS.leaderboardPageSize;
const DEFAULT_LIMIT = 100;

/** An opaque cursor: the offset of the next entry. */
const encodeCursor = (offset: number) => btoa(`o:${offset}`).replace(/=+$/, "");
function decodeCursor(cursor: string): number | null {
  try {
    const m = /^o:([0-9]{1,9})$/.exec(atob(cursor));
    return m ? Number(m[1]) : null;
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
    .max(64)
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
      ...errorResponses(400, 401, 403, 404),
    },
  });
  app.use(`/v1/projects/:slug/top/${kind}`, publicRead);
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    const by = q.by ?? "expavg_credit";
    const limit = q.limit ?? DEFAULT_LIMIT;
    const offset = q.cursor === undefined ? 0 : decodeCursor(q.cursor)!;
    const now = serverNow();
    const { slug, id } = c.var.project;
    const pageNumbers = [...new Set([Math.floor(offset / PAGE), Math.floor((offset + limit - 1) / PAGE)])];
    // A page always loads (an empty one past the end), so a read is never null.
    const pages = (await Promise.all(
      pageNumbers.map((n) => readThrough(c, kvKeys.leaderboardPage(slug, kind, by, n), () => loadLeaderboardPage(c.var.db, id, kind, by, n, now))),
    )) as SnapshotRead<LeaderboardPage>[];
    const entries = pages.flatMap((p) => p.data.entries).filter((e) => e.rank > offset && e.rank <= offset + limit);
    const total = pages[0]!.data.total;
    const body = {
      [kind]: entries.map((e) => ({ ...e, recent_average_credit: racAt(e, now) })),
      total,
      next_cursor: offset + limit < total ? encodeCursor(offset + limit) : null,
      as_of: now,
      snapshot_time: Math.min(...pages.map((p) => p.takenAt)),
    };
    return snapshotResponse(c, [...pages.map((p) => p.version), `${offset}`, `${limit}`], body) as never;
  });
}

export function mountLeaderboards(app: OpenAPIHono<AppEnv>): void {
  for (const kind of HOLDER_KINDS) mountKind(app, kind);
}
