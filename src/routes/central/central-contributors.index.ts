/**
 * Central tokens: the operator (ADMIN_TOKEN) issues one to each project elsewhere that pushes
 * to the registry. A token is shown once and stored only as its SHA-256; revoking one drops
 * what it pushed.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { count, eq, max, sql } from "drizzle-orm";
import { runBatch } from "../../db/batch";
import { centralContributions, centralContributors } from "../../db/schema";
import type { AppEnv } from "../../env";
import { ApiError } from "../../http/errors";
import { newCentralToken, sha256Hex } from "../../http/tokens";
import { serverNow } from "../common";
import { createContributorRoute, deleteContributorRoute, listContributorsRoute } from "./central-contributors.routes";

export function mountCentralContributors(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createContributorRoute, async (c) => {
    const body = c.req.valid("json");
    const token = newCentralToken();
    const [row] = await c.var.db
      .insert(centralContributors)
      .values({ name: body.name, url: body.url ?? null, tokenHash: await sha256Hex(token), createdAt: serverNow() })
      .returning({ id: centralContributors.id });
    return c.json({ id: row!.id, name: body.name, token }, 201);
  });

  app.openapi(listContributorsRoute, async (c) => {
    const t = centralContributions;
    const rows = await c.var.db
      .select({
        c: centralContributors,
        lastReport: max(t.reportedAt),
        projects: sql<number>`count(DISTINCT ${t.project})`,
        versions: count(t.appVersionId),
      })
      .from(centralContributors)
      .leftJoin(t, eq(t.contributorId, centralContributors.id))
      .groupBy(centralContributors.id)
      .orderBy(centralContributors.id);
    return c.json(
      {
        contributors: rows.map((r) => ({
          id: r.c.id,
          name: r.c.name,
          url: r.c.url,
          created_at: r.c.createdAt,
          last_report: r.lastReport,
          projects: r.projects,
          app_versions: r.versions,
        })),
      },
      200,
    );
  });

  app.openapi(deleteContributorRoute, async (c) => {
    const { id } = c.req.valid("param");
    const [held] = await c.var.db.select({ id: centralContributors.id }).from(centralContributors).where(eq(centralContributors.id, id));
    if (!held) throw new ApiError(404, "not_found", `no contributor ${id}`);
    await runBatch(c.var.db, [
      sql`DELETE FROM ${centralContributions} WHERE contributor_id = ${id}`,
      sql`DELETE FROM ${centralContributors} WHERE id = ${id}`,
    ]);
    return c.json({ id, revoked: true as const }, 200);
  });
}
