/** The project's audit log: every successful write to it, newest first. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { and, desc, eq, lt } from "drizzle-orm";
import { auditLog } from "../../db/schema";
import type { AppEnv } from "../../env";
import { route } from "./audit.routes";

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
