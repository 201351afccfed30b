/**
 * The operator's re-base of an app's fair anchor (docs/spec/fair-policy.md#re-base): S_ref and
 * the seals cleared, every existing host × version row of the app a founder, in one batch.
 * The next rescale that finds the app mature anchors and seals again.
 */
import { and, eq, sql } from "drizzle-orm";
import { runBatch } from "../../db/batch";
import { PROJECT_SUBJECT, markSubjects } from "../../db/kv-marks";
import { appVersions, apps, hostAppVersions } from "../../db/schema";
import type { Db } from "../../db/client";
import { ApiError } from "../../http/errors";

export async function rebaseFairAnchor(db: Db, projectId: number, appName: string, now: number) {
  const inApp = (appId: number) => ({
    versions: and(eq(appVersions.projectId, projectId), eq(appVersions.appId, appId)),
    rows: and(eq(hostAppVersions.projectId, projectId), eq(hostAppVersions.appId, appId)),
  });
  const [found] = await db
    .select()
    .from(apps)
    .where(and(eq(apps.projectId, projectId), eq(apps.name, appName)));
  if (!found) throw new ApiError(404, "not_found", `unknown app '${appName}'`);
  const where = inApp(found.id);
  // Counted before, written in one batch: only rows that change are written (a row already a founder costs nothing).
  const [[sealed], [notFounders]] = await db.batch([
    db
      .select({ n: sql<number>`count(*)` })
      .from(appVersions)
      .where(and(where.versions, eq(appVersions.fairSealed, true))),
    db
      .select({ n: sql<number>`count(*)` })
      .from(hostAppVersions)
      .where(and(where.rows, eq(hostAppVersions.fairFounder, false))),
  ]);
  await runBatch(db, [
    db
      .update(apps)
      .set({ fairSRef: null, fairRebasedAt: now })
      .where(and(eq(apps.projectId, projectId), eq(apps.id, found.id)))
      .getSQL(),
    db
      .update(appVersions)
      .set({ fairSealed: false })
      .where(and(where.versions, eq(appVersions.fairSealed, true)))
      .getSQL(),
    db
      .update(hostAppVersions)
      .set({ fairFounder: true })
      .where(and(where.rows, eq(hostAppVersions.fairFounder, false)))
      .getSQL(),
    ...markSubjects(projectId, [PROJECT_SUBJECT]),
  ]);
  const [app] = await db
    .select()
    .from(apps)
    .where(and(eq(apps.projectId, projectId), eq(apps.id, found.id)));
  return { app: app!, versionsUnsealed: sealed!.n, rowsMadeFounders: notFounders!.n };
}
