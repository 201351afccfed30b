/**
 * The feeder's periodic work (BOINC's update_av_scales, docs/spec/credit.md#rescale): per app, the versions
 * in service decide the app's min_avg_pfc and each well-sampled version's pfc_scale.
 */
import { and, eq, sql } from "drizzle-orm";
import { MIN_VERSION_SAMPLES } from "../credit/constants";
import { FAIR } from "../credit/parameters";
import { type AppGpuOnlyFactor, type ScaleRegistry, appGpuOnlyFactor } from "../credit/gpu-only-factor";
import { type ScaleBasis, computeVersionScales, versionsInService } from "../credit/version-scales";
import { type FairScaleBasis, type FairScales, computeFairScales } from "../credit/fair-scales";
import { fairVersionState } from "../db/fair-rows";
import { runBatch } from "../db/batch";
import { PROJECT_SUBJECT, markSubjects } from "../db/kv-marks";
import type { Db } from "../db/client";
import { appVersions, apps, projects } from "../db/schema";
import { loadPublishedTable, scaleRegistry } from "../db/plan-class-registry";
import { jsonList, name, ref, withJsonRows } from "../db/sql-helpers";
import { livesHere } from "../db/project-db";

export interface AppRescale {
  readonly app: string;
  /** null: BOINC changes nothing for this app (too few well-sampled versions). */
  readonly basis: ScaleBasis | null;
  readonly minAvgPfc: number;
  readonly scaledVersions: readonly { id: number; pfcScale: number }[];
  /** A GPU-only app with gpu_only_scale "cross-project": the factor used instead of 0.1, and why. */
  readonly crossProject?: AppGpuOnlyFactor & { readonly registryVersion: number | null };
  /** The fair policy's rescale (docs/spec/fair-policy.md#r3), done for every app whatever its policy. */
  readonly fair: { readonly level: number | null; readonly basis: FairScaleBasis | null };
}

/** `registry`: the default database, which holds the plan-class table (the project's rows are in `db`). */
export async function rescaleProject(db: Db, registry: Db, projectId: number): Promise<AppRescale[]> {
  const [appRows, versionRows] = await db.batch([
    // Like BOINC's feeder (sched_shmem.cpp), only apps in service: deprecated = 0.
    db
      .select()
      .from(apps)
      .where(and(eq(apps.projectId, projectId), eq(apps.deprecated, false))),
    db.select().from(appVersions).where(eq(appVersions.projectId, projectId)),
  ]);
  // The registry is read only when an app asks for it (most apps keep BOINC's 0.1), each
  // table version once: the latest, or the one an app pinned.
  const tables = new Map<number | null, ScaleRegistry | null>();
  const registryFor = async (pin: number | null) => {
    if (!tables.has(pin)) tables.set(pin, scaleRegistry(await loadPublishedTable(registry, pin ?? undefined)));
    return tables.get(pin)!;
  };
  const report: AppRescale[] = [];
  const statements = [];
  let changed = false;
  for (const app of appRows.sort((a, b) => a.id - b.id)) {
    const versions = versionRows.filter((v) => v.appId === app.id).map((v) => ({ ...v, pfc: { n: v.pfcN, avg: v.pfcAvg } }));
    const inService = versionsInService(versions);
    const fair = computeFairScales(
      versions.filter((v) => !v.deprecated).map((v) => ({ id: v.id, planClass: v.planClass, fair: fairVersionState(v) })),
      await registryFor(app.crossProjectVersion),
    );
    // Only what changed is written: an unchanged table must not make the cron rewrite the snapshots.
    const stored = new Map(versions.map((v) => [v.id, v.fairScale]));
    const changedScales = new Map([...fair.scales].filter(([id, scale]) => stored.get(id) !== scale));
    const levelChanged = fair.level !== null && fair.level !== app.fairLevel;
    statements.push(...fairScaleWrites(projectId, app.id, { ...fair, scales: changedScales, level: levelChanged ? fair.level : null }));
    changed ||= changedScales.size > 0 || levelChanged;
    const fairReport = { level: fair.level, basis: fair.basis };
    let crossProject: AppRescale["crossProject"];
    if (app.gpuOnlyScale === "cross-project") {
      const registry = await registryFor(app.crossProjectVersion);
      crossProject = { ...appGpuOnlyFactor(inService, registry), registryVersion: registry?.version ?? null };
    }
    const scales = computeVersionScales(inService, crossProject?.factor);
    if (!scales) {
      report.push({ app: app.name, basis: null, minAvgPfc: app.minAvgPfc, scaledVersions: [], fair: fairReport });
      continue;
    }
    const target = scales.minAvgPfc;
    const byId = new Map(versions.map((v) => [v.id, v]));
    changed ||= target !== app.minAvgPfc || scales.scaledVersionIds.some((id) => target / byId.get(id)!.pfcAvg !== byId.get(id)!.pfcScale);
    if (scales.scaledVersionIds.length > 0) {
      // Divides by each version's average as it is when written.
      statements.push(sql`UPDATE ${appVersions} SET pfc_scale = ${target} / pfc_avg
        WHERE project_id = ${projectId} AND id IN ${jsonList(scales.scaledVersionIds)} AND pfc_n >= ${MIN_VERSION_SAMPLES}`);
    }
    statements.push(sql`UPDATE ${apps} SET min_avg_pfc = ${target} WHERE project_id = ${projectId} AND id = ${app.id}`);
    report.push({
      app: app.name,
      basis: scales.basis,
      minAvgPfc: target,
      scaledVersions: scales.scaledVersionIds.map((id) => ({ id, pfcScale: target / byId.get(id)!.pfcAvg })),
      ...(crossProject && scales.basis === "gpu_only" ? { crossProject } : {}),
      fair: fairReport,
    });
  }
  // New scales change the project's public app-version table: the cron rewrites it. A rescale
  // that changed nothing marks nothing, so the 10-minute cron costs no KV writes when idle.
  if (changed) statements.push(...markSubjects(projectId, [PROJECT_SUBJECT]));
  await runBatch(db, statements);
  return report;
}

/**
 * Mature versions get S / L_v with L_v as it is when written (as BOINC's pfc_scale); the
 * others their seed scale.
 */
function fairScaleWrites(projectId: number, appId: number, fair: FairScales) {
  const rows = [...fair.scales].map(([id, scale]) => ({ versionId: id, scale }));
  const f = (field: string) => ref("f", field);
  const level = fair.level;
  const mature = sql`${name(appVersions.fairN)} >= ${FAIR.versionSamples} AND ${name(appVersions.fairLevel)} IS NOT NULL`;
  return [
    ...(rows.length === 0
      ? []
      : [
          sql`${withJsonRows("f", ["versionId", "scale"], rows)}
            UPDATE ${appVersions} SET ${name(appVersions.fairScale)} =
              ${level === null ? f("scale") : sql`CASE WHEN ${mature} THEN ${level} / ${name(appVersions.fairLevel)} ELSE ${f("scale")} END`}
            FROM f WHERE ${name(appVersions.projectId)} = ${projectId} AND ${name(appVersions.id)} = ${f("versionId")}`,
        ]),
    ...(level === null
      ? []
      : [
          sql`UPDATE ${apps} SET ${name(apps.fairLevel)} = ${level} WHERE ${name(apps.projectId)} = ${projectId} AND ${name(apps.id)} = ${appId}`,
        ]),
  ];
}

/** What cron runs every 10 minutes: the rescale of every project that lives in `db`. */
export async function rescaleAllProjects(db: Db, registry: Db): Promise<number> {
  const rows = await db.select({ id: projects.id }).from(projects).where(livesHere);
  for (const p of rows) await rescaleProject(db, registry, p.id);
  return rows.length;
}
