/** What an account manager's reply tells a client about its host's projects: the booked lifetime totals. */
import { and, eq, gte, sql } from "drizzle-orm";
import { TOTALS_FIELDS, type Totals } from "../credit/am-deltas";
import { recentAverageOfDays } from "../credit/am-recent-average";
import { CREDIT_HALF_LIFE, SECONDS_PER_DAY } from "../credit/constants";
import { dayOf } from "../credit/history";
import type { Db } from "./client";
import { amDaily, amHostProjects } from "./schema";

/** Days of daily sums the recent average reads: ten half-lives, after which a day weighs < 0.1 %. */
const AVERAGE_DAYS = (10 * CREDIT_HALF_LIFE) / SECONDS_PER_DAY;

export interface HostAccount extends Totals {
  readonly masterUrl: string;
  /** The user's estimated credit booked for this project (all their hosts), and its recent average. */
  readonly userTotalEc: number;
  readonly userAvgEc: number;
}

/** Every project the host reported to this account manager, with the totals it last reported (the baseline). */
export async function loadHostAccounts(db: Db, amId: number, hostId: number, userId: number, now: number): Promise<HostAccount[]> {
  const d = amDaily;
  const ofUser = and(eq(d.amId, amId), eq(d.subject, "user_project"), eq(d.entityId, userId));
  const [projects, recent, totals] = await db.batch([
    db
      .select()
      .from(amHostProjects)
      .where(and(eq(amHostProjects.amId, amId), eq(amHostProjects.hostId, hostId))),
    db
      .select({ url: d.url, day: d.day, ec: d.ec })
      .from(d)
      .where(and(ofUser, gte(d.day, dayOf(now) - AVERAGE_DAYS))),
    db
      .select({ url: d.url, totalEc: d.totalEc })
      .from(d)
      .where(
        and(
          ofUser,
          sql`${d.day} = (SELECT max(l.${sql.identifier(d.day.name)}) FROM ${d} AS l WHERE l.am_id = ${d.amId}
            AND l.subject = ${d.subject} AND l.entity_id = ${d.entityId} AND l.url = ${d.url})`,
        ),
      ),
  ]);
  const totalByUrl = new Map(totals.map((t) => [t.url, t.totalEc]));
  return projects
    .filter((p) => p.masterUrl !== null)
    .map((p) => ({
      masterUrl: p.masterUrl!,
      ...(Object.fromEntries(TOTALS_FIELDS.map((f) => [f, p[fieldColumn[f]]])) as Totals),
      userTotalEc: totalByUrl.get(p.url) ?? 0,
      userAvgEc: recentAverageOfDays(
        recent.filter((r) => r.url === p.url),
        now,
      ),
    }));
}

const fieldColumn = {
  cpu_ec: "cpuEc",
  cpu_time: "cpuTime",
  gpu_ec: "gpuEc",
  gpu_time: "gpuTime",
  njobs_success: "njobsSuccess",
  njobs_error: "njobsError",
} as const;
