/** The query and answer of every daily-history endpoint (users, hosts, teams, projects). */
import { z } from "@hono/zod-openapi";
import { type DayBucket, type HistoryWindow, dailyHistory, dayOfDate, historyWindow } from "../../credit/history";
import { SNAPSHOT_LIMITS } from "../../snapshots/limits";

export const HistoryQuery = z.object({
  days: z
    .string()
    .regex(/^[0-9]{1,5}$/, "a whole number of days")
    .transform(Number)
    .pipe(z.number().int().min(1).max(SNAPSHOT_LIMITS.maxHistoryDays))
    .optional()
    .openapi({ param: { name: "days", in: "query" }, description: `How many days, up to ${SNAPSHOT_LIMITS.maxHistoryDays} (default 30)`, example: "90" }),
  end: z
    .string()
    .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/, "a date YYYY-MM-DD")
    .refine((d) => !Number.isNaN(dayOfDate(d)), "no such date")
    .optional()
    .openapi({ param: { name: "end", in: "query" }, description: "The last day (UTC, YYYY-MM-DD); default today", example: "2026-11-21" }),
});

export const HistoryDaySchema = z
  .object({
    date: z.string().openapi({ example: "2026-11-21" }),
    credit: z.number().openapi({ description: "Credit granted that day (UTC)" }),
    total_credit: z.number().openapi({ description: "Total credit at the end of the day" }),
    expavg_credit: z.number().openapi({ description: "RAC at the end of the day (today: now)" }),
  })
  .openapi("HistoryDay");

export const HistorySchema = z
  .object({
    days: z.array(HistoryDaySchema),
    as_of: z.number(),
    snapshot_time: z.number().openapi({ description: "When the data was read from the ledger" }),
  })
  .openapi("History");

// Lives in credit/history (the pages use it too); re-exported for the routes.
export { historyWindow };

/** Whether stored buckets kept from `fromDay` on can answer this window. */
export function covers(stored: { from_day: number; buckets: readonly DayBucket[] }, w: HistoryWindow): boolean {
  return w.firstDay >= stored.from_day || !stored.buckets.some((b) => b.day < stored.from_day);
}

export function historyBody(buckets: readonly DayBucket[], totalCredit: number, w: HistoryWindow, takenAt: number) {
  return { days: dailyHistory(buckets, totalCredit, w), as_of: w.now, snapshot_time: takenAt };
}
