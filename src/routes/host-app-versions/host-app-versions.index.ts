import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { and, asc, eq } from "drizzle-orm";
import { apps, hostAppVersions } from "../../db/schema";
import type { AppEnv } from "../../env";
import { errorResponses } from "../../http/errors";
import { SlugParams, idText } from "../common";

const HostAppVersionSchema = z
  .object({
    host_id: z.number().int(),
    app_version_id: z.number().int().openapi({ description: "Negative (-2 … -6) for an anonymous platform" }),
    app: z.string(),
    pfc_n: z.number(),
    pfc_avg: z.number(),
    et_n: z.number(),
    et_avg: z.number(),
    et_var: z.number(),
    turnaround_n: z.number(),
    turnaround_avg: z.number(),
    turnaround_var: z.number(),
    consecutive_valid: z.number().int(),
    fair_n: z.number().int().openapi({ description: "Fair policy: samples while young (the host is normalised from 10)" }),
    fair_typical: z.number().nullable().openapi({ description: "Fair policy: the host's typical PFC/est (running median); null while young" }),
    fair_run: z.number().int().openapi({ description: "Fair policy: outliers in a row (+ high, - low); 5 re-learns the host" }),
    fair_error_rate: z.number().openapi({ description: "Fair policy: EMA of client errors and timeouts; above 0.1 the host is in bad standing" }),
    fair_high_z_share: z.number().nullable().openapi({
      description: "Fair policy: the host's share of results with z above its version's 98% quantile (EMA, weight 0.02); above the version's gate its z feeds no quantile. Null until its first established result",
    }),
  })
  .openapi("HostAppVersion");

const listRoute = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/host-app-versions",
  tags: ["Statistics"],
  summary: "A host's per-app-version statistics (BOINC's host_app_version rows)",
  ...access("projectToken"),
  request: {
    params: SlugParams,
    query: z.object({
      host_id: idText("a positive integer host id").openapi({ param: { name: "host_id", in: "query", required: true }, example: "10" }),
    }),
  },
  responses: {
    200: {
      description: "The host's rows",
      content: { "application/json": { schema: z.object({ host_app_versions: z.array(HostAppVersionSchema) }) } },
    },
    ...errorResponses(400, 401, 403),
  },
});

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
