import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { appBody } from "../../snapshots/catalog-bodies";
import { readApps } from "../../snapshots/reads";
import { snapshotResponse } from "../../snapshots/store";
import { listAppsRoute, putAppRoute } from "./apps.routes";
import { putApp } from "./apps.service";

export function mountApps(app: OpenAPIHono<AppEnv>): void {
  app.openapi(putAppRoute, async (c) => {
    const { app: appName } = c.req.valid("param");
    const body = c.req.valid("json");
    const row = await putApp(c.var.db, c.var.registry, c.var.project.id, appName, body);
    return c.json(appBody(row), 200);
  });

  app.openapi(listAppsRoute, async (c) => {
    const read = await readApps(c, c.var.project);
    return snapshotResponse(c, [read.version], read.data) as never;
  });
}
