/**
 * The operator's re-base of an app's fair anchor (docs/spec/fair-policy.md#re-base): S_ref and
 * the seals cleared, every existing host × version row of the app a founder, and the audit row
 * with the operator's reason, in one batch: no re-base is stored without its reason. The next
 * rescale that finds the app mature anchors and seals again.
 */
import { type SQL, and, eq } from "drizzle-orm";
import { runNamedBatch } from "../../db/batch";
import { PROJECT_SUBJECT, markSubjects } from "../../db/kv-marks";
import { appVersions, apps, hostAppVersions } from "../../db/schema";
import type { Db } from "../../db/client";
import { ApiError } from "../../http/errors";

/** Re-bases the app; `audit` is the request's audit row (src/http/audit.ts, auditRow), written in the same batch. */
export async function rebaseFairAnchor(db: Db, projectId: number, appName: string, now: number, audit: SQL) {
  const [found] = await db
    .select()
    .from(apps)
    .where(and(eq(apps.projectId, projectId), eq(apps.name, appName)));
  if (!found) throw new ApiError(404, "not_found", `unknown app '${appName}'`);
  const rebased = { fairSRef: null, fairRebasedAt: now };
  // Only rows that change are written (a row already a founder costs nothing); each update's count of changed rows is the answer.
  const { unsealed, madeFounders } = await runNamedBatch(
    db,
    {
      app: db
        .update(apps)
        .set(rebased)
        .where(and(eq(apps.projectId, projectId), eq(apps.id, found.id)))
        .getSQL(),
      unsealed: db
        .update(appVersions)
        .set({ fairSealed: false })
        .where(and(eq(appVersions.projectId, projectId), eq(appVersions.appId, found.id), eq(appVersions.fairSealed, true)))
        .getSQL(),
      madeFounders: db
        .update(hostAppVersions)
        .set({ fairFounder: true })
        .where(and(eq(hostAppVersions.projectId, projectId), eq(hostAppVersions.appId, found.id), eq(hostAppVersions.fairFounder, false)))
        .getSQL(),
    },
    [...markSubjects(projectId, [PROJECT_SUBJECT]), audit],
  );
  return { app: { ...found, ...rebased }, versionsUnsealed: unsealed.meta.changes, rowsMadeFounders: madeFounders.meta.changes };
}
