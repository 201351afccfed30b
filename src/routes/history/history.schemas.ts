/** The query and answer of every daily-history endpoint (users, hosts, teams, projects). */
import { z } from "@hono/zod-openapi";
import { type DayBucket, type HistoryWindow, dailyHistory, dateOfDay, dayOfDate, historyWindow } from "../../credit/history";
import type { StoredHistory } from "../../snapshots/holders";
import { SNAPSHOT_LIMITS } from "../../snapshots/limits";

export const HistoryQuery = z.object({
  days: z
    .string()
    .regex(/^[0-9]{1,5}$/, "a whole number of days")
    .transform(Number)
    .pipe(z.number().int().min(1).max(SNAPSHOT_LIMITS.maxHistoryDays))
    .optional()
    .openapi({
      param: { name: "days", in: "query" },
      description: `How many days, up to ${SNAPSHOT_LIMITS.maxHistoryDays} (default 30)`,
      example: "90",
    }),
  end: z
    .string()
    .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/, "a date YYYY-MM-DD")
    .refine((d) => !Number.isNaN(dayOfDate(d)), "no such date")
    .optional()
    .openapi({ param: { name: "end", in: "query" }, description: "The last day (UTC, YYYY-MM-DD); default today", example: "2026-11-21" }),
});

const HistoryDaySchema = z
  .object({
    date: z.string().openapi({ description: "The day, or the first day of a month", example: "2026-11-21" }),
    period: z.enum(["day", "month"]).openapi({ description: "A day, or a whole month (history before `monthly_before` is kept by month)" }),
    credit: z.number().openapi({ description: "Credit granted that day or month (UTC)" }),
    total_credit: z.number().openapi({ description: "Total credit at the end of the day or month" }),
    expavg_credit: z.number().openapi({ description: "RAC at the end of the day or month (today: now)" }),
  })
  .openapi("HistoryDay");

export const HistorySchema = z
  .object({
    days: z.array(HistoryDaySchema).openapi({
      description: "One entry per day; a window reaching before `monthly_before` gets one entry per whole month there",
    }),
    monthly_before: z.string().nullable().openapi({
      description: "History before this day (YYYY-MM-DD, a month's first day) is kept as monthly totals; null: all days",
      example: "2024-11-01",
    }),
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

export function historyBody(history: StoredHistory, totalCredit: number, w: HistoryWindow, takenAt: number) {
  const monthlyBefore = history.monthly_before ?? 0;
  return {
    days: dailyHistory(history.buckets, totalCredit, w, monthlyBefore),
    monthly_before: monthlyBefore > 0 ? dateOfDay(monthlyBefore) : null,
    as_of: w.now,
    snapshot_time: takenAt,
  };
}
