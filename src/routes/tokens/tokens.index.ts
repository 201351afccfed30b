/**
 * Project token rotation. POST issues a new token of a scope (shown once, stored as SHA-256)
 * and gives every other live token of the project of that scope 24 hours; DELETE revokes one at
 * once. A leaked token is thus replaced without downtime: rotate, deploy the new token to the
 * validators, revoke. A project holds at most MAX_LIVE_TOKENS live tokens (of both scopes
 * together), and issuing has its own rate limit.
 */
import { createRouter } from "../../http/router";
import { projectLimiterKey } from "../../http/auth";
import { enforceTokenIssueLimit } from "../../http/rate-limit";
import { serverNow } from "../common";
import { issueTokenRoute, listTokensRoute, revokeTokenRoute } from "./tokens.routes";
import { issueToken, listTokens, revokeToken } from "./tokens.service";
import type { AppRouteHandler } from "../route-handler";

const revokeTokenHandler: AppRouteHandler<typeof revokeTokenRoute> = async (c) => {
  const { id } = c.req.valid("param");
  await revokeToken(c.var.registry, c.var.project.id, id, serverNow());
  return c.json({ id, revoked: true as const }, 200);
};

const listTokensHandler: AppRouteHandler<typeof listTokensRoute> = async (c) => {
  return c.json({ tokens: await listTokens(c.var.registry, c.var.project.id, serverNow()) }, 200);
};

const issueTokenHandler: AppRouteHandler<typeof issueTokenRoute> = async (c) => {
  const projectId = c.var.project.id;
  // No body (a rotation as before scopes): a 'manage' token, which lists and revokes the old ones as the docs' rotation does.
  const scope = (c.req.header("content-type")?.includes("json") ? c.req.valid("json").scope : undefined) ?? "manage";
  await enforceTokenIssueLimit(c, projectLimiterKey(projectId));
  const now = serverNow();
  const { id, token, othersExpireAt } = await issueToken(c.var.registry, projectId, scope, now);
  return c.json({ id, token, created_at: now, expires_at: null, scope, others_expire_at: othersExpireAt }, 201);
};

export const tokensRouter = createRouter()
  .openapi(issueTokenRoute, issueTokenHandler)
  .openapi(listTokensRoute, listTokensHandler)
  .openapi(revokeTokenRoute, revokeTokenHandler);
