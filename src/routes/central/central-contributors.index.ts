/**
 * Central tokens: the operator (ADMIN_TOKEN) issues one to each project elsewhere that pushes
 * to the registry. A token is shown once and stored only as its SHA-256; revoking one drops
 * what it pushed.
 */
import { createRouter } from "../../http/router";
import { newCentralToken } from "../../http/tokens";
import { serverNow } from "../common";
import { createContributorRoute, deleteContributorRoute, listContributorsRoute } from "./central-contributors.routes";
import { createContributor, deleteContributor, listContributors } from "./central-contributors.service";
import type { AppRouteHandler } from "../route-handler";

const deleteContributorHandler: AppRouteHandler<typeof deleteContributorRoute> = async (c) => {
  const { id } = c.req.valid("param");
  await deleteContributor(c.var.db, id);
  return c.json({ id, revoked: true as const }, 200);
};

const listContributorsHandler: AppRouteHandler<typeof listContributorsRoute> = async (c) => {
  const rows = await listContributors(c.var.db);
  return c.json(
    {
      contributors: rows.map((r) => ({
        id: r.c.id,
        name: r.c.name,
        url: r.c.url,
        created_at: r.c.createdAt,
        last_report: r.lastReport,
        projects: r.projects,
        app_versions: r.versions,
      })),
    },
    200,
  );
};

const createContributorHandler: AppRouteHandler<typeof createContributorRoute> = async (c) => {
  const body = c.req.valid("json");
  const token = newCentralToken();
  const id = await createContributor(c.var.db, body.name, body.url ?? null, token, serverNow());
  return c.json({ id, name: body.name, token }, 201);
};

export const centralContributorsRouter = createRouter()
  .openapi(createContributorRoute, createContributorHandler)
  .openapi(listContributorsRoute, listContributorsHandler)
  .openapi(deleteContributorRoute, deleteContributorHandler);
