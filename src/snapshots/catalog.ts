/** A project's apps and app versions as the public sees them (BOINC's app_versions.php facts). */
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { appVersions, apps } from "../db/schema";
import { appBody, appVersionBody } from "./catalog-bodies";

export async function loadApps(db: Db, projectId: number) {
  const rows = await db.select().from(apps).where(eq(apps.projectId, projectId)).orderBy(asc(apps.id));
  return { apps: rows.map(appBody) };
}

export async function loadAppVersions(db: Db, projectId: number) {
  const rows = await db
    .select({ v: appVersions, appName: apps.name })
    .from(appVersions)
    .innerJoin(apps, and(eq(apps.projectId, appVersions.projectId), eq(apps.id, appVersions.appId)))
    .where(eq(appVersions.projectId, projectId))
    .orderBy(asc(appVersions.id));
  return { app_versions: rows.map((r) => appVersionBody(r.v, r.appName)) };
}
