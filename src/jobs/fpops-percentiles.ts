/**
 * Trickle credit's FLOPS bounds, kept current by the cron (BOINC's trickle handler computes
 * them once at start): per project, the 50th and 95th percentile of p_fpops over the hosts
 * with stored expavg_credit > 10, as DB_HOST::fpops_percentile picks them. Hosts that never
 * reported a benchmark are left out.
 */
import { livesHere } from "../db/project-db";
import { and, eq, gt, isNotNull, sql } from "drizzle-orm";
import { PERCENTILE_MIN_RAC, percentileIndex } from "../credit/trickle";
import type { Db } from "../db/client";
import { hosts, projects } from "../db/schema";

const counted = (projectId: number) =>
  and(eq(hosts.projectId, projectId), gt(hosts.expavgCredit, PERCENTILE_MIN_RAC), isNotNull(hosts.pFpops));

/** The value at `index` of the project's counted hosts' p_fpops, ascending. */
function valueAt(db: Db, projectId: number, index: number) {
  return db.select({ v: hosts.pFpops }).from(hosts).where(counted(projectId)).orderBy(hosts.pFpops).limit(1).offset(index);
}

/** Recomputes one project's percentiles (null when no host counts). */
async function refreshFpopsPercentiles(db: Db, projectId: number, now: number): Promise<{ p50: number; p95: number } | null> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(hosts)
    .where(counted(projectId));
  const n = row?.n ?? 0;
  let bounds: { p50: number; p95: number } | null = null;
  if (n > 0) {
    const [[p50], [p95]] = await db.batch([valueAt(db, projectId, percentileIndex(n, 50)), valueAt(db, projectId, percentileIndex(n, 95))]);
    bounds = { p50: p50!.v!, p95: p95!.v! };
  }
  await db
    .update(projects)
    .set({ fpopsP50: bounds?.p50 ?? null, fpopsP95: bounds?.p95 ?? null, fpopsPercentilesAt: now })
    .where(eq(projects.id, projectId));
  return bounds;
}

export async function refreshAllFpopsPercentiles(db: Db, now: number): Promise<string> {
  const ids = await db.select({ id: projects.id }).from(projects).where(livesHere);
  let known = 0;
  for (const { id } of ids) if (await refreshFpopsPercentiles(db, id, now)) known++;
  return `FLOPS percentiles of ${ids.length} projects (${known} with hosts over RAC ${PERCENTILE_MIN_RAC})`;
}
