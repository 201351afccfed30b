import { access } from "../access";
import { OpenAPIHono, createRoute } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { planClassVersionExists } from "../../db/plan-class-registry";
import { apps } from "../../db/schema";
import type { AppEnv } from "../../env";
import { PROJECT_SUBJECT, markOne } from "../../db/kv-marks";
import { appBody } from "../../snapshots/catalog-bodies";
import { readApps } from "../../snapshots/reads";
import { NOT_MODIFIED, snapshotResponse } from "../../snapshots/store";
import { ApiError, errorResponses } from "../../http/errors";
import { SlugParams } from "../common";
import { AppListSchema, AppNameParams, AppSchema, PutAppSchema } from "./apps.schemas";

const putAppRoute = createRoute({
  method: "put",
  path: "/v1/projects/{slug}/apps/{app}",
  tags: ["Configuration"],
  summary: "Register an app or change its settings",
  description: "A new app starts with min_avg_pfc = 1 (BOINC's schema default). Omitted fields keep their value.",
  ...access("projectToken"),
  request: { params: AppNameParams, body: { required: true, content: { "application/json": { schema: PutAppSchema } } } },
  responses: {
    200: { description: "The app as stored", content: { "application/json": { schema: AppSchema } } },
    ...errorResponses(400, 401, 403, 422),
  },
});

const listAppsRoute = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/apps",
  tags: ["Statistics"],
  summary: "The project's apps with their credit settings and min_avg_pfc",
  ...access("publicProject"),
  request: { params: SlugParams },
  responses: {
    200: { description: "Apps in registration order", content: { "application/json": { schema: AppListSchema } } },
    ...NOT_MODIFIED,
    ...errorResponses(401, 403, 404),
  },
});

export function mountApps(app: OpenAPIHono<AppEnv>): void {
  app.openapi(putAppRoute, async (c) => {
    const { app: appName } = c.req.valid("param");
    const body = c.req.valid("json");
    const db = c.var.db;
    const projectId = c.var.project.id;
    const [held] = await db.select().from(apps).where(and(eq(apps.projectId, projectId), eq(apps.name, appName)));
    const creditMode = body.credit_mode ?? held?.creditMode ?? "adaptive";
    const maxGranted = body.max_granted_credit ?? held?.maxGrantedCredit;
    if (creditMode === "runtime" && maxGranted === 0) {
      // BOINC's validator refuses --credit_from_runtime without a cap.
      throw new ApiError(422, "invalid_settings", "credit_mode 'runtime' needs a non-zero max_granted_credit", [
        { path: "max_granted_credit", message: "must not be 0 with credit_mode 'runtime'" },
      ]);
    }
    if (body.cross_project_version != null && !(await planClassVersionExists(c.var.registry, body.cross_project_version))) {
      throw new ApiError(422, "unknown_version", `no plan-class table version ${body.cross_project_version}`, [
        { path: "cross_project_version", message: "not a published version of GET /v1/plan-classes" },
      ]);
    }
    const settings = {
      ...(body.host_scale_check === undefined ? {} : { hostScaleCheck: body.host_scale_check }),
      ...(body.target_nresults === undefined ? {} : { targetNresults: body.target_nresults }),
      ...(body.credit_mode === undefined ? {} : { creditMode: body.credit_mode }),
      ...(body.max_granted_credit === undefined ? {} : { maxGrantedCredit: body.max_granted_credit }),
      ...(body.min_avg_pfc === undefined ? {} : { minAvgPfc: body.min_avg_pfc }),
      ...(body.deprecated === undefined ? {} : { deprecated: body.deprecated }),
      ...(body.gpu_only_scale === undefined ? {} : { gpuOnlyScale: body.gpu_only_scale }),
      ...(body.cross_project_version === undefined ? {} : { crossProjectVersion: body.cross_project_version }),
      ...(body.credit_policy === undefined ? {} : { creditPolicy: body.credit_policy }),
      ...(body.trickle_max_runtime === undefined ? {} : { trickleMaxRuntime: body.trickle_max_runtime }),
    };
    // Apps are numbered 1, 2, 3 … per project, in order of registration (BOINC's app.id).
    const nextId = sql<number>`(SELECT coalesce(max(${apps.id}), 0) + 1 FROM ${apps} WHERE ${apps.projectId} = ${projectId})`;
    const [[row]] = await db.batch([
      db
        .insert(apps)
        .values({ projectId, id: nextId, name: appName, ...settings })
        .onConflictDoUpdate({
          target: [apps.projectId, apps.name],
          set: Object.keys(settings).length > 0 ? settings : { name: appName },
        })
        .returning(),
      markOne(db, projectId, PROJECT_SUBJECT),
    ]);
    return c.json(appBody(row!), 200);
  });

  app.openapi(listAppsRoute, async (c) => {
    const read = await readApps(c, c.var.project);
    return snapshotResponse(c, [read.version], read.data) as never;
  });
}
