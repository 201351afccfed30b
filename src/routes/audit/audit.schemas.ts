import { z } from "@hono/zod-openapi";
import { idText } from "../common";

export const AuditQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .openapi({ param: { name: "limit", in: "query" } }),
  cursor: idText("a cursor from next_cursor")
    .optional()
    .openapi({ param: { name: "cursor", in: "query" } }),
});

export const AuditEntrySchema = z
  .object({
    id: z.number().int(),
    at: z.number().openapi({ description: "Unix seconds" }),
    actor: z.string().openapi({ description: '"token:<id>" (a project token\'s id) or "admin"' }),
    method: z.string(),
    route: z.string().openapi({ example: "/v1/projects/:slug/passes" }),
    target: z.string().openapi({ example: "/v1/projects/einstein/passes" }),
    status: z.number().int(),
    request_id: z.string(),
    reason: z.string().nullable().openapi({ description: "Why, for a route that asks for a reason (a fair re-base); else null" }),
  })
  .openapi("AuditEntry");
