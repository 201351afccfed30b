import { OpenAPIHono } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { appVersions, apps } from "../../db/schema";
import type { AppEnv } from "../../env";
import { PROJECT_SUBJECT, markOne } from "../../db/kv-marks";
import { appVersionBody } from "../../snapshots/catalog-bodies";
import { readAppVersions } from "../../snapshots/reads";
import { snapshotResponse } from "../../snapshots/store";
import { ApiError } from "../../http/errors";
import { listRoute, putRoute } from "./app-versions.routes";

export function mountAppVersions(app: OpenAPIHono<AppEnv>): void {
  app.openapi(putRoute, async (c) => {
    const { id } = c.req.valid("param");
    const b = c.req.valid("json");
    const db = c.var.db;
    const projectId = c.var.project.id;
    const [appRow] = await db.select().from(apps).where(and(eq(apps.projectId, projectId), eq(apps.name, b.app)));
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
    return c.json(appVersionBody(row!, appRow.name), 200);
  });

  app.openapi(listRoute, async (c) => {
    const read = await readAppVersions(c, c.var.project);
    return snapshotResponse(c, [read.version], read.data) as never;
  });
}
