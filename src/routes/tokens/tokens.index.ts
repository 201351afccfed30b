/**
 * Project token rotation. POST issues a new token (shown once, stored as SHA-256) and gives
 * every other live token of the project 24 hours; DELETE revokes one at once. A leaked token
 * is thus replaced without downtime: rotate, deploy the new token to the validators, revoke.
 * A project holds at most MAX_LIVE_TOKENS live tokens, and issuing has its own rate limit.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { and, asc, eq, gt, isNull, ne, or, sql } from "drizzle-orm";
import { projectTokens } from "../../db/schema";
import type { AppEnv } from "../../env";
import { projectLimiterKey } from "../../http/auth";
import { MAX_LIVE_TOKENS, ROTATION_GRACE_SECONDS } from "../../limits";
import { enforceTokenIssueLimit } from "../../http/rate-limit";
import { ApiError } from "../../http/errors";
import { newProjectToken, sha256Hex } from "../../http/tokens";
import { serverNow } from "../common";
import { issueTokenRoute, listTokensRoute, revokeTokenRoute } from "./tokens.routes";


const live = (projectId: number, now: number) =>
  and(eq(projectTokens.projectId, projectId), or(isNull(projectTokens.expiresAt), gt(projectTokens.expiresAt, now)));

export function mountTokens(app: OpenAPIHono<AppEnv>): void {
  app.openapi(issueTokenRoute, async (c) => {
    const db = c.var.registry;
    const projectId = c.var.project.id;
    await enforceTokenIssueLimit(c, projectLimiterKey(projectId));
    const now = serverNow();
    const token = newProjectToken();
    const hash = await sha256Hex(token);
    const othersExpireAt = now + ROTATION_GRACE_SECONDS;
    const liveCount = sql`(SELECT count(*) FROM ${projectTokens} WHERE project_id = ${projectId}
      AND (expires_at IS NULL OR expires_at > ${now}))`;
    // One batch: the new token is inserted only while the project has fewer than
    // MAX_LIVE_TOKENS live ones (check and insert in one statement), and the others get their
    // deadline exactly when it was.
    const [[issued]] = await db.batch([
      db
        .insert(projectTokens)
        .select(
          db
            .select({
              id: sql<number>`NULL`.as("id"),
              projectId: sql<number>`${projectId}`.as("project_id"),
              tokenHash: sql<string>`${hash}`.as("token_hash"),
              createdAt: sql<number>`${now}`.as("created_at"),
              expiresAt: sql<number | null>`NULL`.as("expires_at"),
            })
            .from(sql`(SELECT 1)`)
            .where(sql`${liveCount} < ${MAX_LIVE_TOKENS}`),
        )
        .returning({ id: projectTokens.id }),
      db
        .update(projectTokens)
        .set({ expiresAt: othersExpireAt })
        .where(
          and(
            live(projectId, now),
            ne(projectTokens.tokenHash, hash),
            or(isNull(projectTokens.expiresAt), gt(projectTokens.expiresAt, othersExpireAt)),
            sql`EXISTS (SELECT 1 FROM ${projectTokens} WHERE token_hash = ${hash})`,
          ),
        ),
    ]);
    if (!issued) {
      throw new ApiError(
        409,
        "conflict",
        `the project already has ${MAX_LIVE_TOKENS} live tokens (the most it may hold); revoke one (DELETE /tokens/{id}) before issuing another`,
      );
    }
    return c.json({ id: issued.id, token, created_at: now, expires_at: null, others_expire_at: othersExpireAt }, 201);
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
