import { z } from "@hono/zod-openapi";
import { RATE_LIMIT_TIER_NAMES } from "../../limits";

export const RateLimitSchema = z
  .object({
    slug: z.string(),
    tier: z.enum(RATE_LIMIT_TIER_NAMES),
    limit: z.number().int().openapi({ description: "Requests per period, shared by all of the project's tokens" }),
    period_seconds: z.number().int(),
  })
  .openapi("RateLimit");

export const SetRateLimitSchema = z.strictObject({ tier: z.enum(RATE_LIMIT_TIER_NAMES) }).openapi("SetRateLimit");
