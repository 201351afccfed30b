import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { appVersions, apps } from "../../db/schema";
import type { AppEnv } from "../../env";
import { PROJECT_SUBJECT, markOne } from "../../db/kv-marks";
import { appVersionBody } from "../../snapshots/catalog-bodies";
import { readAppVersions } from "../../snapshots/reads";
import { NOT_MODIFIED, snapshotResponse } from "../../snapshots/store";
import { ApiError, errorResponses } from "../../http/errors";
import { IdParam, SlugParams } from "../common";

const PutAppVersionSchema = z
  .strictObject({
    app: z.string().min(1),
    platform: z.string().min(1).openapi({ example: "x86_64-pc-linux-gnu" }),
    plan_class: z.string().openapi({ example: "cuda_fermi", description: "'' for a plain CPU version" }),
    version_num: z.number().int().nonnegative(),
    deprecated: z.boolean().optional(),
  })
  .openapi("PutAppVersion");

const AppVersionSchema = z
  .object({
    id: z.number().int(),
    app: z.string(),
    platform: z.string(),
    plan_class: z.string(),
    version_num: z.number().int(),
    deprecated: z.boolean(),
    pfc_n: z.number(),
    pfc_avg: z.number(),
    pfc_scale: z.number(),
    expavg_credit: z.number(),
    expavg_time: z.number(),
    fair_n: z.number().int().openapi({ description: "Samples in the fair policy's version level" }),
    fair_level: z.number().nullable().openapi({ description: "The fair policy's version level L_v (typical PFC/est of its hosts)" }),
    fair_scale: z.number().nullable().openapi({ description: "The fair policy's version scale (null: the default seed, 1 CPU / 0.1 GPU)" }),
    fair_w_v: z.number().openapi({
      description: "The fair policy's paid share of a job's z now: 0 where the version's z band is that of noise around rsc_fpops_est, 1 where est hides job sizes",
    }),
    fair_high_z_share: z.number().openapi({ description: "The fair policy's share of this version's results with z above its 98% quantile (EMA, weight 0.002); the quantile gate derives from it" }),
  })
  .openapi("AppVersion");

const putRoute = createRoute({
  method: "put",
  path: "/v1/projects/{slug}/app-versions/{id}",
  tags: ["Configuration"],
  summary: "Register an app version (statistics start at zero and are kept on later PUTs)",
  ...access("projectToken"),
  request: {
    params: SlugParams.extend({ id: IdParam }),
    body: { required: true, content: { "application/json": { schema: PutAppVersionSchema } } },
  },
  responses: {
    200: { description: "The app version as stored", content: { "application/json": { schema: AppVersionSchema } } },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/app-versions",
  tags: ["Statistics"],
  summary: "Every app version with its PFC statistics, scale and recent average credit",
  ...access("publicProject"),
  request: { params: SlugParams },
  responses: {
    200: {
      description: "App versions by id",
      content: { "application/json": { schema: z.object({ app_versions: z.array(AppVersionSchema) }) } },
    },
    ...NOT_MODIFIED,
    ...errorResponses(401, 403, 404),
  },
});

export function mountAppVersions(app: OpenAPIHono<AppEnv>): void {
  app.openapi(putRoute, async (c) => {
    const { id } = c.req.valid("param");
    const b = c.req.valid("json");
    const db = c.var.db;
    const projectId = c.var.project.id;
    const [appRow] = await db.select().from(apps).where(and(eq(apps.projectId, projectId), eq(apps.name, b.app)));
    if (!appRow) {
      throw new ApiError(404, "not_found", `unknown app '${b.app}'`, [{ path: "app", message: `unknown app '${b.app}'` }]);
    }
    const [held] = await db
      .select()
      .from(appVersions)
      .where(and(eq(appVersions.projectId, projectId), eq(appVersions.id, id)));
    if (held && held.appId !== appRow.id) {
      throw new ApiError(409, "conflict", `app version ${id} belongs to another app`, [
        { path: "app", message: "an app version cannot move to another app" },
      ]);
    }
    const fields = {
      platform: b.platform,
      planClass: b.plan_class,
      versionNum: b.version_num,
      ...(b.deprecated === undefined ? {} : { deprecated: b.deprecated }),
    };
    const [[row]] = await db.batch([
      db
        .insert(appVersions)
        .values({ projectId, id, appId: appRow.id, ...fields })
        .onConflictDoUpdate({ target: [appVersions.projectId, appVersions.id], set: fields })
        .returning(),
      markOne(db, projectId, PROJECT_SUBJECT),
    ]);
    return c.json(appVersionBody(row!, appRow.name), 200);
  });

  app.openapi(listRoute, async (c) => {
    const read = await readAppVersions(c, c.var.project);
    return snapshotResponse(c, [read.version], read.data) as never;
  });
}
