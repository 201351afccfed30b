import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import type { HolderKind } from "../../snapshots/keys";
import { NOT_MODIFIED } from "../../snapshots/store";
import { SlugParams } from "../common";
import { EntrySchema, Query } from "./leaderboards.schemas";

/** GET /v1/projects/{slug}/top/{kind}: one kind's leaderboard. */
export function topRoute(kind: HolderKind) {
  return createRoute({
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
              total: z
                .number()
                .int()
                .openapi({ description: `How many ${kind} the whole leaderboard has` }),
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
}
