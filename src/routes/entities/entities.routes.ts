import { access } from "../access";
import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import type { HolderKind } from "../../snapshots/keys";
import { NOT_MODIFIED } from "../../snapshots/store";
import { IdParam, SlugParams } from "../common";
import { HistoryQuery, HistorySchema } from "../history/history.schemas";
import { publicSchemas, putSchemas, storedSchemas } from "./entities.schemas";

/** The routes of one kind of holder (hosts, users, teams). */
export function holderRoutes(kind: HolderKind) {
  const params = SlugParams.extend({ id: IdParam });
  const one = kind.slice(0, -1);
  const putRoute = createRoute({
    method: "put",
    path: `/v1/projects/{slug}/${kind}/{id}`,
    tags: ["Configuration"],
    summary: `Register a ${one} or change its details`,
    description:
      "A new one starts its RAC clock (expavg_time) at create_time, as in BOINC; while it has no credit, " +
      "a later create_time moves the clock too.",
    ...access("projectToken"),
    request: { params, body: { required: true, content: { "application/json": { schema: putSchemas[kind] } } } },
    responses: {
      200: { description: `The ${one} as stored`, content: { "application/json": { schema: storedSchemas[kind] } } },
      ...errorResponses(400, 401, 403, 422),
    },
  });
  const getRoute = createRoute({
    method: "get",
    path: `/v1/projects/{slug}/${kind}/{id}`,
    tags: ["Credit"],
    summary: `A ${one}'s credit: total, BOINC's stored RAC pair, the RAC decayed to now${kind === "hosts" ? "" : ", credit per app"}`,
    description: "Served from a KV snapshot that the minute cron refreshes after each pass; with the project's token, from the ledger.",
    ...access("publicProject"),
    request: { params },
    responses: {
      200: { description: `The ${one}`, content: { "application/json": { schema: publicSchemas[kind] } } },
      ...NOT_MODIFIED,
      ...errorResponses(401, 403, 404),
    },
  });
  const historyRoute = createRoute({
    method: "get",
    path: `/v1/projects/{slug}/${kind}/{id}/history`,
    tags: ["Credit"],
    summary: `A ${one}'s daily credit (UTC days): granted that day, total and RAC at its end`,
    ...access("publicProject"),
    request: { params, query: HistoryQuery },
    responses: {
      200: { description: "One entry per day, oldest first", content: { "application/json": { schema: HistorySchema } } },
      ...NOT_MODIFIED,
      ...errorResponses(400, 401, 403, 404),
    },
  });
  return { putRoute, getRoute, historyRoute };
}
