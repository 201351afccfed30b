/**
 * Project token rotation. POST issues a new token (shown once, stored as SHA-256) and gives
 * every other live token of the project 24 hours; DELETE revokes one at once. A leaked token
 * is thus replaced without downtime: rotate, deploy the new token to the validators, revoke.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { and, asc, eq, gt, isNull, or, sql } from "drizzle-orm";
import { projectTokens } from "../../db/schema";
import type { AppEnv } from "../../env";
import { requireProjectTokenOrAdmin } from "../../http/auth";
import { ApiError } from "../../http/errors";
import { newProjectToken, sha256Hex } from "../../http/tokens";
import { serverNow } from "../common";
import { issueTokenRoute, listTokensRoute, revokeTokenRoute } from "./tokens.routes";

/** How long the other tokens keep working after a rotation. */
export const ROTATION_GRACE_SECONDS = 24 * 3600;

const live = (projectId: number, now: number) =>
  and(eq(projectTokens.projectId, projectId), or(isNull(projectTokens.expiresAt), gt(projectTokens.expiresAt, now)));

export function mountTokens(app: OpenAPIHono<AppEnv>): void {
  app.use("/v1/projects/:slug/tokens", requireProjectTokenOrAdmin);
  app.use("/v1/projects/:slug/tokens/:id", requireProjectTokenOrAdmin);

  app.openapi(issueTokenRoute, async (c) => {
    const db = c.var.registry;
    const projectId = c.var.project.id;
    const now = serverNow();
    const token = newProjectToken();
    const hash = await sha256Hex(token);
    const othersExpireAt = now + ROTATION_GRACE_SECONDS;
    // One batch: the new token exists exactly when the others got their deadline.
    const [, [issued]] = await db.batch([
      db
        .update(projectTokens)
        .set({ expiresAt: othersExpireAt })
        .where(and(live(projectId, now), or(isNull(projectTokens.expiresAt), gt(projectTokens.expiresAt, othersExpireAt)))),
      db.insert(projectTokens).values({ projectId, tokenHash: hash, createdAt: now, expiresAt: null }).returning({ id: projectTokens.id }),
    ]);
    return c.json({ id: issued!.id, token, created_at: now, expires_at: null, others_expire_at: othersExpireAt }, 201);
  });

  app.openapi(listTokensRoute, async (c) => {
    const rows = await c.var.registry
      .select({ id: projectTokens.id, created_at: projectTokens.createdAt, expires_at: projectTokens.expiresAt })
      .from(projectTokens)
      .where(live(c.var.project.id, serverNow()))
      .orderBy(asc(projectTokens.id));
    return c.json({ tokens: rows }, 200);
  });

  app.openapi(revokeTokenRoute, async (c) => {
    const { id } = c.req.valid("param");
    const projectId = c.var.project.id;
    const now = serverNow();
    // Deletes the token only if another live token remains: the check and the delete are one statement.
    const deleted = await c.var.registry.run(
      sql`DELETE FROM ${projectTokens} WHERE id = ${id} AND project_id = ${projectId}
          AND (SELECT count(*) FROM ${projectTokens} WHERE project_id = ${projectId} AND id != ${id}
               AND (expires_at IS NULL OR expires_at > ${now})) > 0`,
    );
    if (deleted.meta.changes === 0) {
      const [held] = await c.var.registry
        .select({ id: projectTokens.id })
        .from(projectTokens)
        .where(and(eq(projectTokens.id, id), live(projectId, now)));
      if (!held) throw new ApiError(404, "not_found", `no live token ${id} in this project`);
      throw new ApiError(409, "conflict", `token ${id} is the project's last live token; issue a new one first`);
    }
    return c.json({ id, revoked: true as const }, 200);
  });
}
