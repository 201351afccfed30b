/** The public view of projects: the list with totals, one project, its daily history. */
import { opener } from "../../db/project-db";
import { createRouter } from "../../http/router";
import { ApiError } from "../../http/errors";
import { racAt } from "../../snapshots/present";
import { type ProjectSummary, loadProjectSnapshot } from "../../snapshots/project";
import { readProject } from "../../snapshots/public-project";
import { readProjectList } from "../../snapshots/reads";
import { setCacheValidators } from "../../snapshots/store";
import { serverNow } from "../common";
import { covers, historyBody, historyWindow } from "../history/history.schemas";
import type { AppRouteHandler } from "../route-handler";
import { historyRoute, listRoute, oneRoute } from "./project-reads.routes";

function present(p: ProjectSummary, at: number) {
  return {
    slug: p.slug,
    name: p.name,
    url: p.url,
    create_time: p.create_time,
    first_credit_time: p.first_credit_time ?? null,
    total_credit: p.total_credit,
    expavg_credit: p.expavg_credit,
    expavg_time: p.expavg_time,
    recent_average_credit: racAt(p, at),
    users: p.users,
    hosts: p.hosts,
    teams: p.teams,
  };
}

const list: AppRouteHandler<typeof listRoute> = async (c) => {
  const read = await readProjectList(c);
  if (setCacheValidators(c, [read.version])) return c.body(null, 304);
  const at = serverNow();
  return c.json({ projects: read.data.projects.map((p) => present(p, at)), as_of: at, snapshot_time: read.takenAt }, 200);
};

const read = async (c: Parameters<typeof readProject>[0]) => {
  const r = await readProject(c, c.var.project.slug);
  if (!r) throw new ApiError(404, "not_found", `no project '${c.var.project.slug}'`);
  return r;
};

const one: AppRouteHandler<typeof oneRoute> = async (c) => {
  const r = await read(c);
  if (setCacheValidators(c, [r.version])) return c.body(null, 304);
  const at = serverNow();
  return c.json({ ...present(r.data, at), as_of: at, snapshot_time: r.takenAt }, 200);
};

const history: AppRouteHandler<typeof historyRoute> = async (c) => {
  const window = historyWindow(c.req.valid("query"), serverNow());
  const r = await read(c);
  if (covers(r.data.history, window)) {
    if (setCacheValidators(c, [r.version, `${window.firstDay}`, `${window.lastDay}`])) return c.body(null, 304);
    return c.json(historyBody(r.data.history, r.data.total_credit, window, r.takenAt), 200);
  }
  // Older than the snapshot keeps: straight from the ledger, not cached.
  if (setCacheValidators(c, [`${r.version}.${Math.floor(window.now)}`, `${window.firstDay}`, `${window.lastDay}`]))
    return c.body(null, 304);
  const loaded = (await loadProjectSnapshot(c.var.db, c.var.project.slug, window.firstDay, opener(c.env))) ?? r.data;
  return c.json(historyBody(loaded.history, loaded.total_credit, window, window.now), 200);
};

export const projectReadsRouter = createRouter().openapi(listRoute, list).openapi(oneRoute, one).openapi(historyRoute, history);
