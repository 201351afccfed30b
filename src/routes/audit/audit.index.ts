/** The project's audit log: every successful write to it, newest first. */
import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { and, desc, eq, lt } from "drizzle-orm";
import { auditLog } from "../../db/schema";
import type { AppEnv } from "../../env";
import { errorResponses } from "../../http/errors";
import { SlugParams, idText } from "../common";

const AuditQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100).openapi({ param: { name: "limit", in: "query" } }),
  cursor: idText("a cursor from next_cursor")
    .optional()
    .openapi({ param: { name: "cursor", in: "query" } }),
});

const AuditEntrySchema = z
  .object({
    id: z.number().int(),
    at: z.number().openapi({ description: "Unix seconds" }),
    actor: z.string().openapi({ description: '"token:<id>" (a project token\'s id) or "admin"' }),
    method: z.string(),
    route: z.string().openapi({ example: "/v1/projects/:slug/passes" }),
    target: z.string().openapi({ example: "/v1/projects/einstein/passes" }),
    status: z.number().int(),
    request_id: z.string(),
  })
  .openapi("AuditEntry");

const route = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/audit",
  tags: ["Tokens"],
  summary: "The project's audit log: who wrote what, when, with which request id (newest first)",
  ...access("projectToken"),
  request: { params: SlugParams, query: AuditQuery },
  responses: {
    200: {
      description: "A page of entries",
      content: {
        "application/json": { schema: z.object({ entries: z.array(AuditEntrySchema), next_cursor: z.string().nullable() }) },
      },
    },
    ...errorResponses(400, 401, 403, 429),
  },
});

export function mountAudit(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const a = auditLog;
    const rows = await c.var.db
      .select()
      .from(a)
      .where(and(eq(a.projectId, c.var.project.id), cursor === undefined ? undefined : lt(a.id, cursor)))
      .orderBy(desc(a.id))
      .limit(limit + 1);
    const page = rows.slice(0, limit);
    const entries = page.map((r) => ({
      id: r.id,
      at: r.at,
      actor: r.actor,
      method: r.method,
      route: r.route,
      target: r.target,
      status: r.status,
      request_id: r.requestId,
    }));
    return c.json({ entries, next_cursor: rows.length > limit ? String(page[page.length - 1]!.id) : null }, 200);
  });
}
