import { OpenAPIHono } from "@hono/zod-openapi";
import { and, asc, eq } from "drizzle-orm";
import { apps, hostAppVersions } from "../../db/schema";
import type { AppEnv } from "../../env";
import { listRoute } from "./host-app-versions.routes";

export function mountHostAppVersions(app: OpenAPIHono<AppEnv>): void {
  app.openapi(listRoute, async (c) => {
    const { host_id } = c.req.valid("query");
    const h = hostAppVersions;
    const rows = await c.var.db
      .select({ h, app: apps.name })
      .from(h)
      .innerJoin(apps, and(eq(apps.projectId, h.projectId), eq(apps.id, h.appId)))
      .where(and(eq(h.projectId, c.var.project.id), eq(h.hostId, host_id)))
      .orderBy(asc(h.appId), asc(h.appVersionId));
    return c.json(
      {
        host_app_versions: rows.map(({ h: r, app: appName }) => ({
          host_id: r.hostId,
          app_version_id: r.appVersionId,
          app: appName,
          pfc_n: r.pfcN,
          pfc_avg: r.pfcAvg,
          et_n: r.etN,
          et_avg: r.etAvg,
          et_var: r.etVar,
          turnaround_n: r.turnaroundN,
          turnaround_avg: r.turnaroundAvg,
          turnaround_var: r.turnaroundVar,
          consecutive_valid: r.consecutiveValid,
          fair_n: r.fairN,
          fair_typical: r.fairQ === null ? null : Math.exp(r.fairQ),
          fair_run: r.fairRun,
          fair_error_rate: r.fairErr,
          fair_high_z_share: r.fairF,
        })),
      },
      200,
    );
  });
}
