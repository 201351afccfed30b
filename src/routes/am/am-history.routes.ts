import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { SERIES_COLUMNS } from "../../credit/daily-series";
import { errorResponses } from "../../http/errors";
import { IdParam } from "../common";
import { AmParams } from "./am-rpcs.schemas";
import { AmHistoryQuery, SeriesSchema, urlQuery } from "./am-history.schemas";

const okResponse = {
  description: `The daily series; with format=csv, CSV with the columns ${SERIES_COLUMNS.join(",")}`,
  content: { "application/json": { schema: SeriesSchema }, "text/csv": { schema: z.string() } },
};

export const routes = {
  user: createRoute({
    method: "get",
    path: "/v1/am/{am}/users/{id}/history",
    tags: ["Account managers"],
    summary: "A user's daily series (with url: for one project, with the reconciliation factor of each day)",
    ...access("publicAccountManager"),
    request: { params: AmParams.extend({ id: IdParam }), query: AmHistoryQuery.extend(urlQuery(false)) },
    responses: { 200: okResponse, ...errorResponses(400, 404) },
  }),
  host: createRoute({
    method: "get",
    path: "/v1/am/{am}/hosts/{id}/history",
    tags: ["Account managers"],
    summary: "A host's daily series (with url: for one project, with the reconciliation factor of each day)",
    ...access("publicAccountManager"),
    request: { params: AmParams.extend({ id: IdParam }), query: AmHistoryQuery.extend(urlQuery(false)) },
    responses: { 200: okResponse, ...errorResponses(400, 404) },
  }),
  project: createRoute({
    method: "get",
    path: "/v1/am/{am}/projects/history",
    tags: ["Account managers"],
    summary: "A project's daily series over all the account manager's users",
    ...access("publicAccountManager"),
    request: { params: AmParams, query: AmHistoryQuery.extend(urlQuery(true)) },
    responses: { 200: okResponse, ...errorResponses(400, 404) },
  }),
  totals: createRoute({
    method: "get",
    path: "/v1/am/{am}/totals/history",
    tags: ["Account managers"],
    summary: "The account manager's daily series over all users and projects",
    ...access("publicAccountManager"),
    request: { params: AmParams, query: AmHistoryQuery },
    responses: { 200: okResponse, ...errorResponses(400, 404) },
  }),
};
