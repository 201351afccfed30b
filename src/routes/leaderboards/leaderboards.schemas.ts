import { z } from "@hono/zod-openapi";
import { LEADERBOARD_ORDERS } from "../../snapshots/keys";
import { type LeaderboardPosition } from "../../snapshots/leaderboard";
import { SNAPSHOT_LIMITS } from "../../snapshots/limits";

export const PAGE = SNAPSHOT_LIMITS.leaderboardPageSize;

export const DEFAULT_LIMIT = 100;

export function decodeCursor(cursor: string): LeaderboardPosition | null {
  try {
    const [rank, key, id, ...extra] = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/"))) as unknown[];
    const whole = (x: unknown, max: number): x is number => Number.isSafeInteger(x) && (x as number) >= 0 && (x as number) <= max;
    if (extra.length > 0 || !whole(rank, 1e9) || !whole(id, Number.MAX_SAFE_INTEGER) || !Number.isFinite(key)) return null;
    return { rank, key: key as number, id };
  } catch {
    return null;
  }
}

export const Query = z.object({
  by: z
    .enum(LEADERBOARD_ORDERS)
    .optional()
    .openapi({ param: { name: "by", in: "query" }, description: "Default expavg_credit (RAC)" }),
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

export const EntrySchema = z
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
