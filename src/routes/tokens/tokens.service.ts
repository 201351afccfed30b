import { and, asc, eq, gt, isNull, ne, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { type TokenScope, projectTokens } from "../../db/schema";
import { ApiError } from "../../http/errors";
import { newProjectToken, sha256Hex } from "../../http/tokens";
import { MAX_LIVE_TOKENS, ROTATION_GRACE_SECONDS } from "../../limits";

const live = (projectId: number, now: number) =>
  and(eq(projectTokens.projectId, projectId), or(isNull(projectTokens.expiresAt), gt(projectTokens.expiresAt, now)));

/**
 * Issues a new token of `scope` (returned once, stored hashed) and gives the project's other
 * live tokens of that scope ROTATION_GRACE_SECONDS; the other scope's tokens are left alone (an
 * `ingest` token minted for the bridge does not end the operator's `manage` one).
 */
export async function issueToken(db: Db, projectId: number, scope: TokenScope, now: number) {
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
            scope: sql<TokenScope>`${scope}`.as("scope"),
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
          eq(projectTokens.scope, scope),
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
  return { id: issued.id, token, othersExpireAt };
}

/** The project's live tokens, oldest first (ids, expiry and scope, never the tokens). */
export function listTokens(db: Db, projectId: number, now: number) {
  return db
    .select({ id: projectTokens.id, created_at: projectTokens.createdAt, expires_at: projectTokens.expiresAt, scope: projectTokens.scope })
    .from(projectTokens)
    .where(live(projectId, now))
    .orderBy(asc(projectTokens.id));
}

/**
 * Revokes token `id` at once; refuses the project's last live `manage` token (409: the project
 * would be left unable to manage itself) and an unknown one (404). `ingest` tokens may all go.
 */
export async function revokeToken(db: Db, projectId: number, id: number, now: number): Promise<void> {
  // Deletes a manage token only if another live manage token remains: the check and the delete are one statement.
  const deleted = await db.run(
    sql`DELETE FROM ${projectTokens} WHERE id = ${id} AND project_id = ${projectId}
        AND (scope != 'manage' OR (SELECT count(*) FROM ${projectTokens} WHERE project_id = ${projectId} AND id != ${id}
             AND scope = 'manage' AND (expires_at IS NULL OR expires_at > ${now})) > 0)`,
  );
  if (deleted.meta.changes === 0) {
    const [held] = await db
      .select({ id: projectTokens.id })
      .from(projectTokens)
      .where(and(eq(projectTokens.id, id), live(projectId, now)));
    if (!held) throw new ApiError(404, "not_found", `no live token ${id} in this project`);
    throw new ApiError(409, "conflict", `token ${id} is the project's last live 'manage' token; issue a new one first`);
  }
}
