import { createRouter } from "../../http/router";
import { appVersionBody } from "../../snapshots/catalog-bodies";
import { readAppVersions } from "../../snapshots/reads";
import { setCacheValidators } from "../../snapshots/store";
import type { AppRouteHandler } from "../route-handler";
import { listRoute, putRoute } from "./app-versions.routes";
import { putAppVersion } from "./app-versions.service";

const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const read = await readAppVersions(c, c.var.project);
  if (setCacheValidators(c, [read.version])) return c.body(null, 304);
  return c.json(read.data, 200);
};

const putHandler: AppRouteHandler<typeof putRoute> = async (c) => {
  const { id } = c.req.valid("param");
  const b = c.req.valid("json");
  const { row, appName } = await putAppVersion(c.var.db, c.var.project.id, id, b);
  return c.json(appVersionBody(row, appName), 200);
};

export const appVersionsRouter = createRouter().openapi(putRoute, putHandler).openapi(listRoute, list);
