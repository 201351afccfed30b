/** The project's audit log: every successful write to it, newest first. */
import { createRouter } from "../../http/router";
import { route } from "./audit.routes";
import { loadAuditPage } from "./audit.service";
import type { AppRouteHandler } from "../route-handler";

const routeHandler: AppRouteHandler<typeof route> = async (c) => {
  const { limit, cursor } = c.req.valid("query");
  const rows = await loadAuditPage(c.var.db, c.var.project.id, limit, cursor);
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
    reason: r.reason,
  }));
  return c.json({ entries, next_cursor: rows.length > limit ? String(page[page.length - 1]!.id) : null }, 200);
};

export const auditRouter = createRouter().openapi(route, routeHandler);
