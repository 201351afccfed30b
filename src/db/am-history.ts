/** Reads of an account manager's daily accounting rows. */
import { and, between, desc, eq, lt } from "drizzle-orm";
import type { DailyRow } from "../credit/daily-series";
import type { Db } from "./client";
import { type AmSubject, amDaily } from "./schema";

export interface SeriesKey {
  readonly subject: AmSubject;
  readonly entityId: number;
  readonly url: string;
}

/** The rows of days first … last, and the running total before them (one read batch). */
export async function loadDailyRows(
  db: Db,
  amId: number,
  key: SeriesKey,
  first: number,
  last: number,
): Promise<{ rows: DailyRow[]; totalBefore: number }> {
  const d = amDaily;
  const ofKey = and(eq(d.amId, amId), eq(d.subject, key.subject), eq(d.entityId, key.entityId), eq(d.url, key.url));
  const [rows, before] = await db.batch([
    db
      .select({
        day: d.day,
        ec: d.ec,
        claimedEc: d.claimedEc,
        cpuTime: d.cpuTime,
        gpuTime: d.gpuTime,
        njobsSuccess: d.njobsSuccess,
        njobsError: d.njobsError,
        totalEc: d.totalEc,
        confirmedEc: d.confirmedEc,
        factor: d.factor,
        windowGranted: d.windowGranted,
        windowEstimated: d.windowEstimated,
      })
      .from(d)
      .where(and(ofKey, between(d.day, first, last))),
    db.select({ totalEc: d.totalEc }).from(d).where(and(ofKey, lt(d.day, first))).orderBy(desc(d.day)).limit(1),
  ]);
  return { rows, totalBefore: before[0]?.totalEc ?? 0 };
}
