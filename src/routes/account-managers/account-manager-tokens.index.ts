/**
 * Admin: rotate or revoke an account manager's token. A rotation issues a new token (shown
 * once, stored hashed) and leaves the current one working for ROTATION_GRACE_SECONDS, as
 * project tokens do; a revocation stops every token of the account manager at once, until
 * the next rotation.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { accountManagers } from "../../db/schema";
import type { AppEnv } from "../../env";
import { amLimiterKey } from "../../http/auth";
import { ApiError } from "../../http/errors";
import { ROTATION_GRACE_SECONDS } from "../../limits";
import { enforceTokenIssueLimit } from "../../http/rate-limit";
import { newAccountManagerToken, sha256Hex } from "../../http/tokens";
import { serverNow } from "../common";
import { revokeRoute, rotateRoute } from "./account-manager-tokens.routes";

async function accountManagerOf(c: { var: AppEnv["Variables"] }, slug: string) {
  const [am] = await c.var.db.select().from(accountManagers).where(eq(accountManagers.slug, slug));
  if (!am) throw new ApiError(404, "not_found", `no account manager '${slug}'`);
  return am;
}

export function mountAccountManagerTokens(app: OpenAPIHono<AppEnv>): void {
  app.openapi(rotateRoute, async (c) => {
    const am = await accountManagerOf(c, c.req.valid("param").am);
    await enforceTokenIssueLimit(c, amLimiterKey(am.id));
    const now = serverNow();
    const token = newAccountManagerToken();
    // A revoked token gets no grace: only the new one works.
    const previousExpiresAt = am.revokedAt === null ? now + ROTATION_GRACE_SECONDS : null;
    await c.var.db
      .update(accountManagers)
      .set({
        tokenHash: await sha256Hex(token),
        previousTokenHash: am.revokedAt === null ? am.tokenHash : null,
        previousExpiresAt,
        revokedAt: null,
      })
      .where(eq(accountManagers.id, am.id));
    return c.json({ slug: am.slug, token, previous_expires_at: previousExpiresAt }, 201);
  });

  app.openapi(revokeRoute, async (c) => {
    const am = await accountManagerOf(c, c.req.valid("param").am);
    await c.var.db
      .update(accountManagers)
      .set({ revokedAt: serverNow(), previousTokenHash: null, previousExpiresAt: null })
      .where(eq(accountManagers.id, am.id));
    return c.json({ slug: am.slug, revoked: true as const }, 200);
  });
}
