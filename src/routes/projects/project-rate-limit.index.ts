/**
 * A project's rate-limit tier: which binding counts its requests (src/limits.ts). The
 * operator sets it (admin only); the project may read it.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { projects } from "../../db/schema";
import type { AppEnv } from "../../env";
import { RATE_LIMIT_TIERS, type RateLimitTierName } from "../../limits";
import { getRoute, putRoute } from "./project-rate-limit.routes";

const answer = (slug: string, tier: RateLimitTierName) => ({
  slug,
  tier,
  limit: RATE_LIMIT_TIERS[tier].limit,
  period_seconds: RATE_LIMIT_TIERS[tier].periodSeconds,
});

export function mountProjectRateLimit(app: OpenAPIHono<AppEnv>): void {
  app.openapi(getRoute, async (c) => {
    const [row] = await c.var.registry.select({ tier: projects.rateLimitTier }).from(projects).where(eq(projects.id, c.var.project.id));
    return c.json(answer(c.var.project.slug, row!.tier), 200);
  });

  app.openapi(putRoute, async (c) => {
    const { tier } = c.req.valid("json");
    await c.var.registry.update(projects).set({ rateLimitTier: tier }).where(eq(projects.id, c.var.project.id));
    return c.json(answer(c.var.project.slug, tier), 200);
  });
}
