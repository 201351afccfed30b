import { access } from "../access";
import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { RATE_LIMIT_TIERS } from "../../limits";
import { SlugParams } from "../common";
import { RateLimitSchema, SetRateLimitSchema } from "./project-rate-limit.schemas";

const path = "/v1/projects/{slug}/rate-limit";

const ok = { description: "The project's rate limit", content: { "application/json": { schema: RateLimitSchema } } };

export const getRoute = createRoute({
  method: "get",
  path,
  tags: ["Tokens"],
  summary: "The project's rate-limit tier and what it admits",
  ...access("projectTokenOrAdmin"),
  request: { params: SlugParams },
  responses: { 200: ok, ...errorResponses(401, 403, 404, 429, 503) },
});

export const putRoute = createRoute({
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
