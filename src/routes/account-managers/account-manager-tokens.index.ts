/**
 * Admin: rotate or revoke an account manager's token. A rotation issues a new token (shown
 * once, stored hashed) and leaves the current one working for ROTATION_GRACE_SECONDS, as
 * project tokens do; a revocation stops every token of the account manager at once, until
 * the next rotation.
 */
import { createRouter } from "../../http/router";
import { amLimiterKey } from "../../http/auth";
import { enforceTokenIssueLimit } from "../../http/rate-limit";
import { newAccountManagerToken } from "../../http/tokens";
import { serverNow } from "../common";
import { revokeRoute, rotateRoute } from "./account-manager-tokens.routes";
import { accountManagerBySlug, revokeAccountManagerTokens, rotateAccountManagerToken } from "./account-manager-tokens.service";
import type { AppRouteHandler } from "../route-handler";

const revokeHandler: AppRouteHandler<typeof revokeRoute> = async (c) => {
  const am = await accountManagerBySlug(c.var.db, c.req.valid("param").am);
  await revokeAccountManagerTokens(c.var.db, am.id, serverNow());
  return c.json({ slug: am.slug, revoked: true as const }, 200);
};

const rotateHandler: AppRouteHandler<typeof rotateRoute> = async (c) => {
  const am = await accountManagerBySlug(c.var.db, c.req.valid("param").am);
  await enforceTokenIssueLimit(c, amLimiterKey(am.id));
  const token = newAccountManagerToken();
  const previousExpiresAt = await rotateAccountManagerToken(c.var.db, am, token, serverNow());
  return c.json({ slug: am.slug, token, previous_expires_at: previousExpiresAt }, 201);
};

export const accountManagerTokensRouter = createRouter().openapi(rotateRoute, rotateHandler).openapi(revokeRoute, revokeHandler);
