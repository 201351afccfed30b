/**
 * Daily series of an account manager's accounting, as JSON or CSV: per user (or user and
 * project), per project, in total, per host (or host and project). Public, like BOINC's stats.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { fillDailySeries, seriesCsv } from "../../credit/daily-series";
import { projectUrlKey } from "../../credit/project-url";
import { type SeriesKey, loadDailyRows } from "../../db/am-history";
import type { AppEnv } from "../../env";
import { serverNow } from "../common";
import { historyWindow } from "../history/history.schemas";
import type { Query } from "./am-history.schemas";
import { routes } from "./am-history.routes";

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
