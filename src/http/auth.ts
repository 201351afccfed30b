import { and, eq, gt, isNull, or } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import { type TokenScope, accountManagers, centralContributors, projectTokens, projects } from "../db/schema";
import type { AppEnv } from "../env";
import { ApiError } from "./errors";
import { enforceRateLimit } from "./rate-limit";
import { bearerToken, sameSecret, sha256Hex } from "./tokens";
import { serverNow } from "../clock";
import { projectDatabase } from "../db/project-db";

const ADMIN_DISABLED =
  "ADMIN_TOKEN is not configured on this deployment, so admin routes are off (set it with `wrangler secret put ADMIN_TOKEN`)";

/** The rate limiter's key of a project: all of its tokens share it, so more tokens buy no rate. */
export const projectLimiterKey = (projectId: number) => `p:${projectId}`;
/** The rate limiter's key of an account manager (shared by its tokens). */
export const amLimiterKey = (amId: number) => `am:${amId}`;

/** True when the request carries the admin token; 503 when the deployment has none. */
async function isAdmin(c: Context<AppEnv>, token: string): Promise<boolean> {
  const configured = c.var.settings.ADMIN_TOKEN;
  if (configured === null) throw new ApiError(503, "admin_disabled", ADMIN_DISABLED);
  return sameSecret(token, configured);
}

/** Admin routes: Authorization: Bearer ADMIN_TOKEN. */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  if (c.var.settings.ADMIN_TOKEN === null) throw new ApiError(503, "admin_disabled", ADMIN_DISABLED);
  const token = bearerToken(c.req.header("Authorization"));
  if (!token) throw new ApiError(401, "unauthorized", "Authorization: Bearer <admin token> is required");
  if (!(await isAdmin(c, token))) throw new ApiError(401, "unauthorized", "invalid admin token");
  await enforceRateLimit(c, "admin");
  c.set("actor", "admin");
  await next();
});

/**
 * The project a live token belongs to (not revoked, not expired), with the token's id and
 * scope, or null for an unknown token.
 */
async function projectOfToken(c: Context<AppEnv>, hash: string) {
  const [row] = await c.var.registry
    .select({
      id: projects.id,
      slug: projects.slug,
      database: projects.database,
      rateLimitTier: projects.rateLimitTier,
      tokenId: projectTokens.id,
      scope: projectTokens.scope,
    })
    .from(projectTokens)
    .innerJoin(projects, eq(projects.id, projectTokens.projectId))
    .where(and(eq(projectTokens.tokenHash, hash), or(isNull(projectTokens.expiresAt), gt(projectTokens.expiresAt, serverNow()))));
  return row ?? null;
}

/** A token of scope `held` may do what `needs` names: a `manage` token anything, an `ingest` one only what ingest allows. */
const allows = (held: TokenScope, needs: TokenScope) => held === "manage" || needs === "ingest";

/** 403 `insufficient_scope`: `what` (a route, or part of a body) needs a token of scope `needs`, and the request's token is narrower. */
function insufficientScope(c: Context<AppEnv>, held: TokenScope, needs: TokenScope, what: string): ApiError {
  const slug = c.req.param("slug") ?? "{slug}";
  return new ApiError(
    403,
    "insufficient_scope",
    `this is an '${held}' token; ${what} needs a '${needs}' token (the project's first token is one; a '${needs}' token or the admin token issues another: POST /v1/projects/${slug}/tokens)`,
  );
}

/**
 * For a route that allows an `ingest` token some of its writes only (PUT apps: the fields the
 * bridge registers): 403 `insufficient_scope` unless the request's token may do `what`. The
 * admin token, where a route takes it, may.
 */
export function requireScope(c: Context<AppEnv>, needs: TokenScope, what: string): void {
  const held = c.var.tokenScope;
  if (held !== undefined && !allows(held, needs)) throw insufficientScope(c, held, needs, what);
}

/**
 * Accepts the project's own token for :slug (401 unknown, 403 another project's or one whose
 * scope does not allow `needs`); sets project, actor and tokenScope.
 */
async function acceptProjectToken(c: Context<AppEnv>, token: string, needs: TokenScope): Promise<void> {
  const hash = await sha256Hex(token);
  const owner = await projectOfToken(c, hash);
  if (!owner) {
    const admin = c.var.settings.ADMIN_TOKEN;
    if (admin !== null && (await sameSecret(token, admin))) {
      const slug = c.req.param("slug") ?? "{slug}";
      throw new ApiError(
        401,
        "unauthorized",
        `this is the admin token; project routes need the project's token (POST /v1/projects/${slug}/tokens with the admin token issues one)`,
      );
    }
    throw new ApiError(401, "unauthorized", "invalid project token");
  }
  if (owner.slug !== c.req.param("slug")) {
    throw new ApiError(403, "forbidden", `this token belongs to another project, not '${c.req.param("slug")}'`);
  }
  // Refused before the rate limit, like another project's token: a refusal spends no budget.
  if (!allows(owner.scope, needs)) throw insufficientScope(c, owner.scope, needs, `${c.req.method} ${routePath(c, -1)}`);
  await enforceRateLimit(c, projectLimiterKey(owner.id), owner.rateLimitTier);
  useProject(c, owner);
  c.set("actor", `token:${owner.tokenId}`);
  c.set("tokenScope", owner.scope);
}

/**
 * Project routes: the bearer token must be one of the project's live tokens whose scope allows
 * `needs`. An unknown (or expired, or revoked) token is 401, the token of another project 403,
 * an `ingest` token on a `manage` route 403 `insufficient_scope`. Sets `project`.
 */
function requireProjectTokenOf(needs: TokenScope) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const token = bearerToken(c.req.header("Authorization"));
    if (!token) throw new ApiError(401, "unauthorized", "Authorization: Bearer <project token> is required");
    await acceptProjectToken(c, token, needs);
    await next();
  });
}

/** Any of the project's tokens (an `ingest` one suffices). */
export const requireProjectToken = requireProjectTokenOf("ingest");
/** A `manage` token of the project. */
export const requireManageToken = requireProjectTokenOf("manage");

/** The project's own token whose scope allows `needs`, or the admin token (an operator may act for a project). */
function requireProjectTokenOrAdminOf(needs: TokenScope) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const token = bearerToken(c.req.header("Authorization"));
    if (!token) throw new ApiError(401, "unauthorized", "Authorization: Bearer <project or admin token> is required");
    const admin = c.var.settings.ADMIN_TOKEN;
    if (admin !== null && (await sameSecret(token, admin))) {
      await enforceRateLimit(c, "admin");
      c.set("actor", "admin");
      await loadProject(c, next);
      return;
    }
    await acceptProjectToken(c, token, needs);
    await next();
  });
}

/** Reads of the project's settings: any of its tokens, or the admin token. */
export const requireProjectTokenOrAdmin = requireProjectTokenOrAdminOf("ingest");
/** Token management: a `manage` token of the project, or the admin token (an operator may rotate for a project). */
export const requireManageTokenOrAdmin = requireProjectTokenOrAdminOf("manage");

/** The request serves this project: sets `project`, and `db` to the project's own database. */
export function useProject(
  c: Context<AppEnv>,
  project: { id: number; slug: string; database: string | null; holderSnapshotsSince?: number | null },
): void {
  c.set("project", { id: project.id, slug: project.slug, holderSnapshotsSince: project.holderSnapshotsSince });
  c.set("db", projectDatabase(c.env, project.database));
}

/** The registry row of :slug, or null. */
export async function registeredProject(c: Context<AppEnv>, slug: string) {
  const [project] = await c.var.registry
    .select({ id: projects.id, slug: projects.slug, database: projects.database, holderSnapshotsSince: projects.holderSnapshotsSince })
    .from(projects)
    .where(eq(projects.slug, slug));
  return project ?? null;
}

/** Public routes: the project named by :slug must exist. Sets `project` and `db`. */
export const loadProject = createMiddleware<AppEnv>(async (c, next) => {
  const slug = c.req.param("slug") ?? "";
  const project = await registeredProject(c, slug);
  if (!project) throw new ApiError(404, "not_found", `no project '${slug}'`);
  useProject(c, project);
  await next();
});

/**
 * Account-manager routes: the bearer token must be the account manager's own (:am). An
 * unknown token is 401, another account manager's 403. Sets `accountManager`.
 */
export const requireAmToken = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header("Authorization"));
  if (!token) throw new ApiError(401, "unauthorized", "Authorization: Bearer <account-manager token> is required");
  const hash = await sha256Hex(token);
  // The current token, or the one before a rotation during its grace; none after a revocation.
  const [owner] = await c.var.db
    .select()
    .from(accountManagers)
    .where(
      and(
        isNull(accountManagers.revokedAt),
        or(
          eq(accountManagers.tokenHash, hash),
          and(eq(accountManagers.previousTokenHash, hash), gt(accountManagers.previousExpiresAt, serverNow())),
        ),
      ),
    );
  if (!owner) throw new ApiError(401, "unauthorized", "invalid account-manager token");
  if (owner.slug !== c.req.param("am")) {
    throw new ApiError(403, "forbidden", `this token belongs to another account manager, not '${c.req.param("am")}'`);
  }
  await enforceRateLimit(c, amLimiterKey(owner.id));
  c.set("accountManager", owner);
  c.set("actor", `am:${owner.id}`);
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
  const hash = await sha256Hex(token);
  const [contributor] = await c.var.db.select().from(centralContributors).where(eq(centralContributors.tokenHash, hash));
  if (!contributor) throw new ApiError(401, "unauthorized", "invalid central token");
  await enforceRateLimit(c, `c:${contributor.id}`);
  c.set("contributor", contributor);
  c.set("actor", `contributor:${contributor.id}`);
  await next();
});
