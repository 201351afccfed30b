/**
 * The feeder's periodic work (BOINC's update_av_scales, docs/spec/credit.md#rescale): per app, the versions
 * in service decide the app's min_avg_pfc and each well-sampled version's pfc_scale.
 */
import { and, eq, sql } from "drizzle-orm";
import { MIN_VERSION_SAMPLES } from "../credit/constants";
import { type CreditPolicy, FAIR } from "../credit/parameters";
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
  /** The app's credit_policy: the alarm concerns only apps the fair policy pays. */
  readonly creditPolicy: CreditPolicy;
  /** null: BOINC changes nothing for this app (too few well-sampled versions). */
  readonly basis: ScaleBasis | null;
  readonly minAvgPfc: number;
  readonly scaledVersions: readonly { id: number; pfcScale: number }[];
  /** A GPU-only app with gpu_only_scale "cross-project": the factor used instead of 0.1, and why. */
  readonly crossProject?: AppGpuOnlyFactor & { readonly registryVersion: number | null };
  /** The fair policy's rescale (docs/spec/fair-policy.md#r3), done for every app whatever its policy. */
  readonly fair: FairRescale;
}

/** What the fair rescale did to an app: its level S, and version 3's anchor (docs/spec/fair-policy.md#r31). */
export interface FairRescale {
  readonly level: number | null;
  readonly basis: FairScaleBasis | null;
  /** S before the clamp, S_ref after this rescale. */
  readonly rawLevel: number | null;
  readonly sRef: number | null;
  readonly anchoredNow: boolean;
  /** The alarm: the clamp held S at 3% from the anchor. */
  readonly clamped: boolean;
}

/** `registry`: the default database, which holds the plan-class table (the project's rows are in `db`). */
export async function rescaleProject(db: Db, registry: Db, projectId: number, now: number): Promise<AppRescale[]> {
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
    const byId = new Map(versions.map((v) => [v.id, v]));
    const fair = computeFairScales(
      versions.filter((v) => !v.deprecated).map((v) => ({ id: v.id, planClass: v.planClass, fair: fairVersionState(v) })),
      await registryFor(app.crossProjectVersion),
      { sRef: app.fairSRef },
    );
    // Only what changed is written: an unchanged table must not make the cron rewrite the snapshots.
    const changedScales = new Map(
      [...fair.scales].filter(([id, scale]) => {
        const v = byId.get(id)!;
        return v.fairScale !== scale || v.fairOwnScale !== fair.ownScale.has(id) || v.fairSealed !== fair.sealed.has(id);
      }),
    );
    statements.push(...fairScaleWrites(projectId, { ...fair, scales: changedScales }));
    const appChange = fairAppChange(app, fair, now);
    if (appChange)
      statements.push(
        db
          .update(apps)
          .set(appChange)
          .where(and(eq(apps.projectId, projectId), eq(apps.id, app.id)))
          .getSQL(),
      );
    changed ||= changedScales.size > 0 || appChange !== null;
    const fairReport: FairRescale = {
      level: fair.level,
      basis: fair.basis,
      rawLevel: fair.rawLevel,
      sRef: fair.sRef,
      anchoredNow: fair.anchoredNow,
      clamped: fair.clamped,
    };
    let crossProject: AppRescale["crossProject"];
    if (app.gpuOnlyScale === "cross-project") {
      const registry = await registryFor(app.crossProjectVersion);
      crossProject = { ...appGpuOnlyFactor(inService, registry), registryVersion: registry?.version ?? null };
    }
    const scales = computeVersionScales(inService, crossProject?.factor);
    if (!scales) {
      report.push({
        app: app.name,
        creditPolicy: app.creditPolicy,
        basis: null,
        minAvgPfc: app.minAvgPfc,
        scaledVersions: [],
        fair: fairReport,
      });
      continue;
    }
    const target = scales.minAvgPfc;
    changed ||= target !== app.minAvgPfc || scales.scaledVersionIds.some((id) => target / byId.get(id)!.pfcAvg !== byId.get(id)!.pfcScale);
    if (scales.scaledVersionIds.length > 0) {
      // Divides by each version's average as it is when written.
      statements.push(sql`UPDATE ${appVersions} SET pfc_scale = ${target} / pfc_avg
        WHERE project_id = ${projectId} AND id IN ${jsonList(scales.scaledVersionIds)} AND pfc_n >= ${MIN_VERSION_SAMPLES}`);
    }
    statements.push(sql`UPDATE ${apps} SET min_avg_pfc = ${target} WHERE project_id = ${projectId} AND id = ${app.id}`);
    report.push({
      app: app.name,
      creditPolicy: app.creditPolicy,
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
 * The app row's fair columns this rescale changes, or null: S (clamped), S before the clamp,
 * and the anchor with its time (docs/spec/fair-policy.md#r31).
 */
function fairAppChange(
  app: typeof apps.$inferSelect,
  fair: FairScales,
  now: number,
): Partial<Pick<typeof apps.$inferInsert, "fairLevel" | "fairSRaw" | "fairSRef" | "fairAnchoredAt">> | null {
  if (fair.level === null) return null;
  const change = {
    ...(fair.level !== app.fairLevel ? { fairLevel: fair.level } : {}),
    ...(fair.rawLevel !== app.fairSRaw ? { fairSRaw: fair.rawLevel } : {}),
    ...(fair.anchoredNow ? { fairSRef: fair.sRef, fairAnchoredAt: now } : {}),
  };
  return Object.keys(change).length > 0 ? change : null;
}

/**
 * Mature versions get S / L_v with L_v as it is when written (as BOINC's pfc_scale), and with
 * it their own scale and, once the app is anchored, the seal; the others their seed scale.
 */
function fairScaleWrites(projectId: number, fair: FairScales) {
  const rows = [...fair.scales].map(([id, scale]) => ({ versionId: id, scale, own: fair.ownScale.has(id), sealed: fair.sealed.has(id) }));
  if (rows.length === 0) return [];
  const f = (field: string) => ref("f", field);
  const level = fair.level;
  const mature = sql`${name(appVersions.fairN)} >= ${FAIR.versionSamples} AND ${name(appVersions.fairLevel)} IS NOT NULL`;
  return [
    sql`${withJsonRows("f", ["versionId", "scale", "own", "sealed"], rows)}
      UPDATE ${appVersions} SET ${name(appVersions.fairScale)} =
        ${level === null ? f("scale") : sql`CASE WHEN ${mature} THEN ${level} / ${name(appVersions.fairLevel)} ELSE ${f("scale")} END`},
        ${name(appVersions.fairOwnScale)} = ${f("own")}, ${name(appVersions.fairSealed)} = ${f("sealed")}
      FROM f WHERE ${name(appVersions.projectId)} = ${projectId} AND ${name(appVersions.id)} = ${f("versionId")}`,
  ];
}

/** An app whose fair level is held at its anchor's limit this rescale (docs/spec/fair-policy.md#r31). */
export interface FairAlarm {
  readonly projectId: number;
  readonly app: string;
  readonly level: number;
  readonly rawLevel: number;
  readonly sRef: number;
}

export function describeFairAlarm(a: FairAlarm): string {
  const ratio = a.rawLevel / a.sRef;
  return `fair alarm: project ${a.projectId} app "${a.app}": app level held at its anchor's limit (S ${a.level}, unclamped S_raw ${a.rawLevel} = ${ratio.toFixed(4)} × S_ref ${a.sRef}); a re-base lets it follow (docs/fair-credit.md#the-alarm-and-the-re-base)`;
}

/**
 * What cron runs every 10 minutes: the rescale of every project that lives in `db`, and the
 * fair apps whose clamp binds (an app on "boinc" keeps its fair statistics, but they pay nothing).
 */
export async function rescaleAllProjects(db: Db, registry: Db, now: number): Promise<{ projects: number; alarms: FairAlarm[] }> {
  const rows = await db.select({ id: projects.id }).from(projects).where(livesHere);
  const alarms: FairAlarm[] = [];
  for (const p of rows) {
    for (const a of await rescaleProject(db, registry, p.id, now)) {
      if (a.fair.clamped)
        alarms.push({ projectId: p.id, app: a.app, level: a.fair.level!, rawLevel: a.fair.rawLevel!, sRef: a.fair.sRef! });
    }
  }
  return { projects: rows.length, alarms };
}
