/** The public view of projects: the list with totals, one project, its daily history. */
import { access } from "../access";
import { opener } from "../../db/project-db";
import { type OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { ApiError, errorResponses } from "../../http/errors";
import { racAt } from "../../snapshots/present";
import { type ProjectSummary, loadProjectSnapshot } from "../../snapshots/project";
import { readProject } from "../../snapshots/public-project";
import { readProjectList } from "../../snapshots/reads";
import { NOT_MODIFIED, snapshotResponse } from "../../snapshots/store";
import { SlugParams, serverNow } from "../common";
import { HistoryQuery, HistorySchema, covers, historyBody, historyWindow } from "../history/history.schemas";

const ProjectSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    url: z.string().nullable(),
    create_time: z.number().openapi({ description: "When the project was created in Cobblestone" }),
    first_credit_time: z
      .number()
      .nullable()
      .openapi({ description: "When the project's first credit was granted (a backfill's oldest history); a pass posted later with an older `now` is granted at the project's clock, so this never moves back. Null before any grant" }),
    total_credit: z.number().openapi({ description: "All credit granted in the project" }),
    expavg_credit: z.number(),
    expavg_time: z.number(),
    recent_average_credit: z.number().openapi({ description: "The project's RAC decayed to as_of" }),
    users: z.number().int(),
    hosts: z.number().int(),
    teams: z.number().int(),
  })
  .openapi("Project");
const asOf = { as_of: z.number(), snapshot_time: z.number().openapi({ description: "When this was read from the ledger" }) };

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

const listRoute = createRoute({
  method: "get",
  path: "/v1/projects",
  tags: ["Credit"],
  summary: "Every project of this deployment, with its totals",
  responses: {
    200: {
      description: "Projects by slug",
      content: { "application/json": { schema: z.object({ projects: z.array(ProjectSchema), ...asOf }) } },
    },
    ...NOT_MODIFIED,
  },
});

const oneRoute = createRoute({
  method: "get",
  path: "/v1/projects/{slug}",
  tags: ["Credit"],
  summary: "A project's totals and counts",
  ...access("publicProject"),
  request: { params: SlugParams },
  responses: {
    200: { description: "The project", content: { "application/json": { schema: ProjectSchema.extend(asOf) } } },
    ...NOT_MODIFIED,
    ...errorResponses(401, 403, 404),
  },
});

const historyRoute = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/history",
  tags: ["Credit"],
  summary: "The project's daily credit (UTC days): granted that day, total and RAC at its end",
  ...access("publicProject"),
  request: { params: SlugParams, query: HistoryQuery },
  responses: {
    200: { description: "One entry per day, oldest first", content: { "application/json": { schema: HistorySchema } } },
    ...NOT_MODIFIED,
    ...errorResponses(400, 401, 403, 404),
  },
});

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
