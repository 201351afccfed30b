import { createRoute } from "@hono/zod-openapi";
import { HealthSchema } from "./health.schemas";

export const route = createRoute({
  method: "get",
  path: "/health",
  tags: ["Operations"],
  summary: "Whether every bound database answers and holds the schema, and KV answers",
  responses: {
    200: { description: "Everything answered", content: { "application/json": { schema: HealthSchema } } },
    503: { description: "A database or KV failed; `checks` says which and why", content: { "application/json": { schema: HealthSchema } } },
  },
});
