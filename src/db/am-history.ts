/** Reads of an account manager's daily accounting rows. */
import { and, asc, between, desc, eq, lt, sql } from "drizzle-orm";
import type { DailyRow } from "../credit/daily-series";
import type { Db } from "./client";
import { jsonList } from "./sql-helpers";
import { type AmSubject, accountManagers, amDaily, amHostLinks, hosts } from "./schema";

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
    db
      .select({ totalEc: d.totalEc })
      .from(d)
      .where(and(ofKey, lt(d.day, first)))
      .orderBy(desc(d.day))
      .limit(1),
  ]);
  return { rows, totalBefore: before[0]?.totalEc ?? 0 };
}

/** An account manager's credit of a project user's hosts that the project linked to its hosts. */
export interface LinkedAmCredit {
  readonly slug: string;
  readonly name: string;
  /** The user's hosts linked to this account manager. */
  readonly hosts: number;
  /** Estimated credit booked for them (days first … last) for the project at `url`. */
  readonly estimated: number;
  /** The part the reconciliation confirmed; null while none of it is reconciled. */
  readonly confirmed: number | null;
}

/**
 * Per account manager, the estimated and confirmed credit of days first … last of a project
 * user's linked hosts (their host_project rows for the project's URL key). The user's hosts
 * are read in the project's database (`projectDb`), the links and the account managers' rows
 * in the registry; nothing more for a user without hosts.
 */
export async function loadUserAmCredit(
  projectDb: Db,
  registry: Db,
  projectId: number,
  userId: number,
  urlKey: string,
  first: number,
  last: number,
): Promise<LinkedAmCredit[]> {
  const own = await projectDb
    .select({ id: hosts.id })
    .from(hosts)
    .where(and(eq(hosts.projectId, projectId), eq(hosts.userId, userId)));
  if (own.length === 0) return [];
  const d = amDaily;
  const l = amHostLinks;
  return registry
    .select({
      slug: accountManagers.slug,
      name: accountManagers.name,
      hosts: sql<number>`count(DISTINCT ${l.hostId})`,
      estimated: sql<number>`coalesce(sum(${d.ec}), 0)`,
      confirmed: sql<number | null>`sum(${d.confirmedEc})`,
    })
    .from(l)
    .innerJoin(accountManagers, eq(accountManagers.id, l.amId))
    .leftJoin(
      d,
      and(eq(d.amId, l.amId), eq(d.subject, "host_project"), eq(d.entityId, l.amHostId), eq(d.url, urlKey), between(d.day, first, last)),
    )
    .where(and(eq(l.projectId, projectId), sql`${l.hostId} IN ${jsonList(own.map((h) => h.id))}`))
    .groupBy(accountManagers.id)
    .orderBy(asc(accountManagers.slug));
}
