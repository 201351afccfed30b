/**
 * A project's rate-limit tier: which binding counts its requests (src/limits.ts). The
 * operator sets it (admin only); the project may read it.
 */
import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { projects } from "../../db/schema";
import type { AppEnv } from "../../env";
import { errorResponses } from "../../http/errors";
import { RATE_LIMIT_TIERS, RATE_LIMIT_TIER_NAMES, type RateLimitTierName } from "../../limits";
import { SlugParams } from "../common";

const RateLimitSchema = z
  .object({
    slug: z.string(),
    tier: z.enum(RATE_LIMIT_TIER_NAMES),
    limit: z.number().int().openapi({ description: "Requests per period, shared by all of the project's tokens" }),
    period_seconds: z.number().int(),
  })
  .openapi("RateLimit");

const SetRateLimitSchema = z.strictObject({ tier: z.enum(RATE_LIMIT_TIER_NAMES) }).openapi("SetRateLimit");

const path = "/v1/projects/{slug}/rate-limit";
const ok = { description: "The project's rate limit", content: { "application/json": { schema: RateLimitSchema } } };

const getRoute = createRoute({
  method: "get",
  path,
  tags: ["Tokens"],
  summary: "The project's rate-limit tier and what it admits",
  ...access("projectTokenOrAdmin"),
  request: { params: SlugParams },
  responses: { 200: ok, ...errorResponses(401, 403, 404, 429, 503) },
});

const putRoute = createRoute({
  method: "put",
  path,
  tags: ["Admin"],
  summary: "Operator: set the project's rate-limit tier",
  description: Object.entries(RATE_LIMIT_TIERS)
    .map(([name, t]) => `${name}: ${t.limit} requests per ${t.periodSeconds} s`)
    .join("; "),
  ...access("adminForProject"),
  request: { params: SlugParams, body: { required: true, content: { "application/json": { schema: SetRateLimitSchema } } } },
  responses: { 200: ok, ...errorResponses(400, 401, 404, 429, 503) },
});

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
