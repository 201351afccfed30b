import { requireScope } from "../../http/auth";
import { createRouter } from "../../http/router";
import { appBody } from "../../snapshots/catalog-bodies";
import { readApps } from "../../snapshots/reads";
import { setCacheValidators } from "../../snapshots/store";
import type { AppRouteHandler } from "../route-handler";
import { listAppsRoute, putAppRoute } from "./apps.routes";
import { INGEST_APP_FIELDS } from "./apps.schemas";
import { putApp } from "./apps.service";

const list: AppRouteHandler<typeof listAppsRoute> = async (c) => {
  const read = await readApps(c, c.var.project);
  if (setCacheValidators(c, [read.version])) return c.body(null, 304);
  return c.json(read.data, 200);
};

const putAppHandler: AppRouteHandler<typeof putAppRoute> = async (c) => {
  const { app: appName } = c.req.valid("param");
  const body = c.req.valid("json");
  const settings = Object.keys(body).filter((field) => !(INGEST_APP_FIELDS as readonly string[]).includes(field));
  if (settings.length > 0) {
    requireScope(
      c,
      "manage",
      `PUT /v1/projects/:slug/apps/:app with ${settings.join(", ")} (the app's settings; an 'ingest' token sends ${INGEST_APP_FIELDS.join(" and ")} only)`,
    );
  }
  const row = await putApp(c.var.db, c.var.registry, c.var.project.id, appName, body);
  return c.json(appBody(row), 200);
};

export const appsRouter = createRouter().openapi(putAppRoute, putAppHandler).openapi(listAppsRoute, list);
