import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { PROJECT_SUBJECT, markOne } from "../../db/kv-marks";
import { planClassVersionExists } from "../../db/plan-class-registry";
import { apps } from "../../db/schema";
import { ApiError } from "../../http/errors";
import type { PutApp } from "./apps.schemas";

/** Registers an app or changes the settings the body names; answers the stored row. */
export async function putApp(db: Db, registry: Db, projectId: number, appName: string, body: PutApp) {
  const [held] = await db
    .select()
    .from(apps)
    .where(and(eq(apps.projectId, projectId), eq(apps.name, appName)));
  const creditMode = body.credit_mode ?? held?.creditMode ?? "adaptive";
  const maxGranted = body.max_granted_credit ?? held?.maxGrantedCredit;
  if (creditMode === "runtime" && maxGranted === 0) {
    // BOINC's validator refuses --credit_from_runtime without a cap.
    throw new ApiError(422, "invalid_settings", "credit_mode 'runtime' needs a non-zero max_granted_credit", [
      { path: "max_granted_credit", message: "must not be 0 with credit_mode 'runtime'" },
    ]);
  }
  if (body.cross_project_version != null && !(await planClassVersionExists(registry, body.cross_project_version))) {
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
  return row!;
}
