import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { PROJECT_SUBJECT, markOne } from "../../db/kv-marks";
import { appVersions, apps } from "../../db/schema";
import { ApiError } from "../../http/errors";
import type { PutAppVersion } from "./app-versions.schemas";

/** Registers app version `id` of app `b.app` or changes it (404 for an unknown app, 409 if it belongs to another); answers the stored row and its app's name. */
export async function putAppVersion(db: Db, projectId: number, id: number, b: PutAppVersion) {
  const [appRow] = await db
    .select()
    .from(apps)
    .where(and(eq(apps.projectId, projectId), eq(apps.name, b.app)));
  if (!appRow) {
    throw new ApiError(404, "not_found", `unknown app '${b.app}'`, [{ path: "app", message: `unknown app '${b.app}'` }]);
  }
  const [held] = await db
    .select()
    .from(appVersions)
    .where(and(eq(appVersions.projectId, projectId), eq(appVersions.id, id)));
  if (held && held.appId !== appRow.id) {
    throw new ApiError(409, "conflict", `app version ${id} belongs to another app`, [
      { path: "app", message: "an app version cannot move to another app" },
    ]);
  }
  const fields = {
    platform: b.platform,
    planClass: b.plan_class,
    versionNum: b.version_num,
    ...(b.deprecated === undefined ? {} : { deprecated: b.deprecated }),
  };
  const [[row]] = await db.batch([
    db
      .insert(appVersions)
      .values({ projectId, id, appId: appRow.id, ...fields })
      .onConflictDoUpdate({ target: [appVersions.projectId, appVersions.id], set: fields })
      .returning(),
    markOne(db, projectId, PROJECT_SUBJECT),
  ]);
  return { row: row!, appName: appRow.name };
}
