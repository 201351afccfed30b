import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { apps, hostAppVersions } from "../../db/schema";

/** The host's host_app_version rows with their app's name, by app and app version. */
export function listHostAppVersions(db: Db, projectId: number, hostId: number) {
  const h = hostAppVersions;
  return db
    .select({ h, app: apps.name })
    .from(h)
    .innerJoin(apps, and(eq(apps.projectId, h.projectId), eq(apps.id, h.appId)))
    .where(and(eq(h.projectId, projectId), eq(h.hostId, hostId)))
    .orderBy(asc(h.appId), asc(h.appVersionId));
}
