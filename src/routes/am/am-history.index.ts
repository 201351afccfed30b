/**
 * Daily series of an account manager's accounting, as JSON or CSV: per user (or user and
 * project), per project, in total, per host (or host and project). Public, like BOINC's stats.
 */
import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { SERIES_COLUMNS, fillDailySeries, seriesCsv } from "../../credit/daily-series";
import { projectUrlKey } from "../../credit/project-url";
import { type SeriesKey, loadDailyRows } from "../../db/am-history";
import type { AppEnv } from "../../env";
import { errorResponses } from "../../http/errors";
import { IdParam, serverNow } from "../common";
import { HistoryQuery, historyWindow } from "../history/history.schemas";
import { MasterUrlSchema } from "./am-rpcs.schemas";
import { AmParams } from "./am-rpcs.index";

/** The days and end of every history read, plus the format. */
const AmHistoryQuery = HistoryQuery.extend({ format: z.enum(["json", "csv"]).default("json") });

const PointSchema = z
  .object({
    date: z.string().openapi({ example: "2026-11-20" }),
    ec: z.number().openapi({ description: "Estimated credit booked that day (after clipping)" }),
    cpu_time: z.number(),
    gpu_time: z.number(),
    njobs_success: z.number(),
    njobs_error: z.number(),
    total_ec: z.number().openapi({ description: "Estimated credit booked up to the end of the day" }),
    claimed_ec: z.number().openapi({ description: "Estimated credit the clients claimed that day, before clipping" }),
    confirmed_ec: z.number().nullable().openapi({ description: "The day's estimated credit confirmed by granted credit; null until reconciled" }),
    factor: z.number().nullable().openapi({ description: "user × project and host × project series: min(1, window_granted / window_estimated)" }),
    window_granted: z.number().nullable().openapi({ description: "Credit granted over the 30 days ending this day" }),
    window_estimated: z.number().nullable().openapi({ description: "Estimated credit over the same 30 days" }),
  })
  .openapi("AmDay");

const SeriesSchema = z.object({ days: z.array(PointSchema) }).openapi("AmSeries");

const okResponse = {
  description: `The daily series; with format=csv, CSV with the columns ${SERIES_COLUMNS.join(",")}`,
  content: { "application/json": { schema: SeriesSchema }, "text/csv": { schema: z.string() } },
};

const urlQuery = (required: boolean) => ({
  url: required ? MasterUrlSchema : MasterUrlSchema.optional().openapi({ description: "One project's series only" }),
});

const routes = {
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

type Query = z.infer<typeof AmHistoryQuery> & { url?: string };

async function series(c: { var: AppEnv["Variables"] }, key: SeriesKey, q: Query): Promise<Response> {
  const { firstDay: first, lastDay: last } = historyWindow(q, serverNow());
  const { rows, totalBefore } = await loadDailyRows(c.var.db, c.var.accountManager.id, key, first, last);
  const days = fillDailySeries(rows, first, last, totalBefore);
  if (q.format === "csv") {
    return new Response(seriesCsv(days), { status: 200, headers: { "Content-Type": "text/csv; charset=utf-8" } });
  }
  return Response.json({ days });
}

const keyUrl = (url: string | undefined) => (url === undefined ? "" : projectUrlKey(url)!);

export function mountAmHistory(app: OpenAPIHono<AppEnv>): void {
  app.openapi(routes.user, async (c) => {
    const q = c.req.valid("query");
    const key: SeriesKey = { subject: q.url ? "user_project" : "user", entityId: c.req.valid("param").id, url: keyUrl(q.url) };
    return (await series(c, key, q)) as never;
  });
  app.openapi(routes.host, async (c) => {
    const q = c.req.valid("query");
    const key: SeriesKey = { subject: q.url ? "host_project" : "host", entityId: c.req.valid("param").id, url: keyUrl(q.url) };
    return (await series(c, key, q)) as never;
  });
  app.openapi(routes.project, async (c) => {
    const q = c.req.valid("query");
    return (await series(c, { subject: "project", entityId: 0, url: keyUrl(q.url) }, q)) as never;
  });
  app.openapi(routes.totals, async (c) => {
    const q = c.req.valid("query");
    return (await series(c, { subject: "total", entityId: 0, url: "" }, q)) as never;
  });
}
