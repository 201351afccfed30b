import { createRouter } from "../../http/router";
import { ApiError } from "../../http/errors";
import { newProjectToken } from "../../http/tokens";
import { serverNow } from "../common";
import { DEFAULT_BINDING, databaseBindings } from "../../db/project-db";
import { checkHistoryBinding, checkMigrated } from "./projects.history-binding";
import { createProjectRoute } from "./projects.routes";
import { createProject } from "./projects.service";
import type { AppRouteHandler } from "../route-handler";

const createProjectHandler: AppRouteHandler<typeof createProjectRoute> = async (c) => {
  const body = c.req.valid("json");
  const token = newProjectToken();
  const now = serverNow();
  const binding = body.database === undefined || body.database === DEFAULT_BINDING ? null : body.database;
  if (binding !== null && !databaseBindings(c.env).includes(binding)) {
    throw new ApiError(422, "unknown_database", `no D1 binding '${binding}' on this deployment (wrangler.jsonc d1_databases)`, [
      { path: "database", message: `one of ${databaseBindings(c.env).join(", ")}` },
    ]);
  }
  if (body.history_database !== undefined) {
    checkHistoryBinding(c.env, body.history_database, binding, [], "history_database");
    await checkMigrated(c.env, body.history_database, "history_database");
  }
  await createProject(c.env, c.var.registry, body, binding, token, now);
  return c.json({ slug: body.slug, token }, 201);
};

export const projectsRouter = createRouter().openapi(createProjectRoute, createProjectHandler);
