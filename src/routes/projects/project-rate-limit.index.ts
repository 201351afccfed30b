/**
 * A project's rate-limit tier: which binding counts its requests (src/limits.ts). The
 * operator sets it (admin only); the project may read it.
 */
import { createRouter } from "../../http/router";
import { RATE_LIMIT_TIERS, type RateLimitTierName } from "../../limits";
import { getRoute, putRoute } from "./project-rate-limit.routes";
import { loadRateLimitTier, setRateLimitTier } from "./project-rate-limit.service";
import type { AppRouteHandler } from "../route-handler";

const answer = (slug: string, tier: RateLimitTierName) => ({
  slug,
  tier,
  limit: RATE_LIMIT_TIERS[tier].limit,
  period_seconds: RATE_LIMIT_TIERS[tier].periodSeconds,
});

const putHandler: AppRouteHandler<typeof putRoute> = async (c) => {
  const { tier } = c.req.valid("json");
  await setRateLimitTier(c.var.registry, c.var.project.id, tier);
  return c.json(answer(c.var.project.slug, tier), 200);
};

const getHandler: AppRouteHandler<typeof getRoute> = async (c) => {
  return c.json(answer(c.var.project.slug, await loadRateLimitTier(c.var.registry, c.var.project.id)), 200);
};

export const projectRateLimitRouter = createRouter().openapi(getRoute, getHandler).openapi(putRoute, putHandler);
