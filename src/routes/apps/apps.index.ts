import { createRouter } from "../../http/router";
import { appBody } from "../../snapshots/catalog-bodies";
import { readApps } from "../../snapshots/reads";
import { setCacheValidators } from "../../snapshots/store";
import type { AppRouteHandler } from "../route-handler";
import { listAppsRoute, putAppRoute } from "./apps.routes";
import { putApp } from "./apps.service";

const list: AppRouteHandler<typeof listAppsRoute> = async (c) => {
  const read = await readApps(c, c.var.project);
  if (setCacheValidators(c, [read.version])) return c.body(null, 304);
  return c.json(read.data, 200);
};

export const appsRouter = createRouter()
  .openapi(putAppRoute, async (c) => {
    const { app: appName } = c.req.valid("param");
    const body = c.req.valid("json");
    const row = await putApp(c.var.db, c.var.registry, c.var.project.id, appName, body);
    return c.json(appBody(row), 200);
  })
  .openapi(listAppsRoute, list);
