/** The public view of projects: the list with totals, one project, its daily history. */
import { opener } from "../../db/project-db";
import { type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { ApiError } from "../../http/errors";
import { racAt } from "../../snapshots/present";
import { type ProjectSummary, loadProjectSnapshot } from "../../snapshots/project";
import { readProject } from "../../snapshots/public-project";
import { readProjectList } from "../../snapshots/reads";
import { snapshotResponse } from "../../snapshots/store";
import { serverNow } from "../common";
import { covers, historyBody, historyWindow } from "../history/history.schemas";
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

export function mountProjectReads(app: OpenAPIHono<AppEnv>): void {
  app.openapi(listRoute, async (c) => {
    const read = await readProjectList(c);
    const at = serverNow();
    const body = { projects: read.data.projects.map((p) => present(p, at)), as_of: at, snapshot_time: read.takenAt };
    return snapshotResponse(c, [read.version], body) as never;
  });

  const read = async (c: Parameters<typeof readProject>[0]) => {
    const r = await readProject(c, c.var.project.slug);
    if (!r) throw new ApiError(404, "not_found", `no project '${c.var.project.slug}'`);
    return r;
  };

  app.openapi(oneRoute, async (c) => {
    const r = await read(c);
    const at = serverNow();
    return snapshotResponse(c, [r.version], { ...present(r.data, at), as_of: at, snapshot_time: r.takenAt }) as never;
  });

  app.openapi(historyRoute, async (c) => {
    const window = historyWindow(c.req.valid("query"), serverNow());
    const r = await read(c);
    if (covers(r.data.history, window)) {
      const body = historyBody(r.data.history, r.data.total_credit, window, r.takenAt);
      return snapshotResponse(c, [r.version, `${window.firstDay}`, `${window.lastDay}`], body) as never;
    }
    // Older than the snapshot keeps: straight from the ledger, not cached.
    const loaded = (await loadProjectSnapshot(c.var.db, c.var.project.slug, window.firstDay, opener(c.env))) ?? r.data;
    const body = historyBody(loaded.history, loaded.total_credit, window, window.now);
    return snapshotResponse(c, [`${r.version}.${Math.floor(window.now)}`, `${window.firstDay}`, `${window.lastDay}`], body) as never;
  });
}
