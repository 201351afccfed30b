/**
 * GET /v1/plan-classes: the cross-project plan-class scale table (public). The latest comes
 * from KV (written by the aggregation job), a pinned version from D1.
 */
import { createRouter } from "../../http/router";
import { loadPublishedTable } from "../../db/plan-class-registry";
import { ApiError } from "../../http/errors";
import { latestScaleTable } from "../../services/plan-class-scales";
import { type ScaleTableBody, scaleTableBody, scaleTableXml } from "../../snapshots/plan-classes.body";
import { route } from "./plan-classes.routes";
import type { AppRouteHandler } from "../route-handler";

const routeHandler: AppRouteHandler<typeof route> = async (c) => {
  const { format, version } = c.req.valid("query");
  let body: ScaleTableBody;
  if (version === undefined) body = await latestScaleTable(c);
  else {
    const table = await loadPublishedTable(c.var.registry, version);
    if (!table) throw new ApiError(404, "not_found", `no plan-class table version ${version}`);
    body = scaleTableBody(table);
  }
  if (format === "xml") return c.body(scaleTableXml(body), 200, { "Content-Type": "application/xml; charset=utf-8" });
  return c.json(body, 200);
};

export const planClassesRouter = createRouter().openapi(route, routeHandler);
