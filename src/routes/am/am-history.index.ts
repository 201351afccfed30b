/**
 * Daily series of an account manager's accounting, as JSON or CSV: per user (or user and
 * project), per project, in total, per host (or host and project). Public, like BOINC's stats.
 */
import { createRouter } from "../../http/router";
import { type SeriesPoint, fillDailySeries, seriesCsv } from "../../credit/daily-series";
import { projectUrlKey } from "../../credit/project-url";
import { type SeriesKey, loadDailyRows } from "../../db/am-history";
import type { AppEnv } from "../../env";
import { serverNow } from "../common";
import type { AppRouteHandler } from "../route-handler";
import { historyWindow } from "../history/history.schemas";
import type { Query } from "./am-history.schemas";
import { routes } from "./am-history.routes";

async function series(c: { var: AppEnv["Variables"] }, key: SeriesKey, q: Query): Promise<SeriesPoint[]> {
  const { firstDay: first, lastDay: last } = historyWindow(q, serverNow());
  const { rows, totalBefore } = await loadDailyRows(c.var.db, c.var.accountManager.id, key, first, last);
  return fillDailySeries(rows, first, last, totalBefore);
}

const csv = (days: SeriesPoint[]) => new Response(seriesCsv(days), { status: 200, headers: { "Content-Type": "text/csv; charset=utf-8" } });

const keyUrl = (url: string | undefined) => (url === undefined ? "" : projectUrlKey(url)!);

const user: AppRouteHandler<typeof routes.user> = async (c) => {
  const q = c.req.valid("query");
  const key: SeriesKey = { subject: q.url ? "user_project" : "user", entityId: c.req.valid("param").id, url: keyUrl(q.url) };
  const days = await series(c, key, q);
  return q.format === "csv" ? csv(days) : c.json({ days }, 200);
};

const host: AppRouteHandler<typeof routes.host> = async (c) => {
  const q = c.req.valid("query");
  const key: SeriesKey = { subject: q.url ? "host_project" : "host", entityId: c.req.valid("param").id, url: keyUrl(q.url) };
  const days = await series(c, key, q);
  return q.format === "csv" ? csv(days) : c.json({ days }, 200);
};

const project: AppRouteHandler<typeof routes.project> = async (c) => {
  const q = c.req.valid("query");
  const days = await series(c, { subject: "project", entityId: 0, url: keyUrl(q.url) }, q);
  return q.format === "csv" ? csv(days) : c.json({ days }, 200);
};

const totals: AppRouteHandler<typeof routes.totals> = async (c) => {
  const q = c.req.valid("query");
  const days = await series(c, { subject: "total", entityId: 0, url: "" }, q);
  return q.format === "csv" ? csv(days) : c.json({ days }, 200);
};

export const amHistoryRouter = createRouter()
  .openapi(routes.user, user)
  .openapi(routes.host, host)
  .openapi(routes.project, project)
  .openapi(routes.totals, totals);
