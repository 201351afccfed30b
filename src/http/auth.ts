import { eq } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import { accountManagers, centralContributors, projects } from "../db/schema";
import type { AppEnv } from "../env";
import { ApiError } from "./errors";
import { bearerToken, sameSecret, sha256Hex } from "./tokens";

/** Admin routes: Authorization: Bearer ADMIN_TOKEN. */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  const configured = c.env.ADMIN_TOKEN;
  if (!configured) throw new ApiError(503, "admin_disabled", "ADMIN_TOKEN is not configured on this deployment");
  const token = bearerToken(c.req.header("Authorization"));
  if (!token) throw new ApiError(401, "unauthorized", "Authorization: Bearer <admin token> is required");
  if (!(await sameSecret(token, configured))) throw new ApiError(401, "unauthorized", "invalid admin token");
  await next();
});

/**
 * Project routes: the bearer token must be the project's own. An unknown token is 401, the
 * token of another project 403. Sets `project`.
 */
export const requireProjectToken = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header("Authorization"));
  if (!token) throw new ApiError(401, "unauthorized", "Authorization: Bearer <project token> is required");
  const [owner] = await c.var.db
    .select()
    .from(projects)
    .where(eq(projects.tokenHash, await sha256Hex(token)));
  if (!owner) throw new ApiError(401, "unauthorized", "invalid project token");
  if (owner.slug !== c.req.param("slug")) {
    throw new ApiError(403, "forbidden", `this token belongs to another project, not '${c.req.param("slug")}'`);
  }
  c.set("project", owner);
  await next();
});

/** Public routes: the project named by :slug must exist. Sets `project`. */
export const loadProject = createMiddleware<AppEnv>(async (c, next) => {
  const slug = c.req.param("slug") ?? "";
  const [project] = await c.var.db.select().from(projects).where(eq(projects.slug, slug));
  if (!project) throw new ApiError(404, "not_found", `no project '${slug}'`);
  c.set("project", project);
  await next();
});

/**
 * Account-manager routes: the bearer token must be the account manager's own (:am). An
 * unknown token is 401, another account manager's 403. Sets `accountManager`.
 */
export const requireAmToken = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header("Authorization"));
  if (!token) throw new ApiError(401, "unauthorized", "Authorization: Bearer <account-manager token> is required");
  const [owner] = await c.var.db
    .select()
    .from(accountManagers)
    .where(eq(accountManagers.tokenHash, await sha256Hex(token)));
  if (!owner) throw new ApiError(401, "unauthorized", "invalid account-manager token");
  if (owner.slug !== c.req.param("am")) {
    throw new ApiError(403, "forbidden", `this token belongs to another account manager, not '${c.req.param("am")}'`);
  }
  c.set("accountManager", owner);
  await next();
});

/** Public account-manager reads: the account manager named by :am must exist. */
export const loadAccountManager = createMiddleware<AppEnv>(async (c, next) => {
  const slug = c.req.param("am") ?? "";
  const [am] = await c.var.db.select().from(accountManagers).where(eq(accountManagers.slug, slug));
  if (!am) throw new ApiError(404, "not_found", `no account manager '${slug}'`);
  c.set("accountManager", am);
  await next();
});

/**
 * Central routes: the bearer token of a contributor (issued by the central operator with
 * POST /v1/central/contributors). An unknown token is 401. Sets `contributor`.
 */
export const requireCentralToken = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header("Authorization"));
  if (!token) throw new ApiError(401, "unauthorized", "Authorization: Bearer <central token> is required");
  const [contributor] = await c.var.db
    .select()
    .from(centralContributors)
    .where(eq(centralContributors.tokenHash, await sha256Hex(token)));
  if (!contributor) throw new ApiError(401, "unauthorized", "invalid central token");
  c.set("contributor", contributor);
  await next();
});
