/**
 * The central server's job: read every fresh report (each local project's app versions, in
 * whichever database the project lives, and what contributors pushed), compute the plan-class
 * scale table, publish it as a new version in the registry (the default database) and as the
 * latest in KV.
 */
import { and, eq, gte, sql } from "drizzle-orm";
import { CENTRAL_STALE_AFTER } from "../credit/parameters";
import { type ContributedVersion, computeScaleTable } from "../credit/plan-class-scales";
import { runBatch } from "../db/batch";
import type { Db } from "../db/client";
import { DEFAULT_BINDING, inEachProjectDatabase, projectDatabase } from "../db/project-db";
import { loadPublishedTable } from "../db/plan-class-registry";
import { appVersions, apps, centralContributions, planClassScaleVersions, planClassScales, projects } from "../db/schema";
import { insertFromJson } from "../db/sql-helpers";
import { livesHere } from "../db/project-db";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { type ScaleTableBody, scaleTableBody } from "../snapshots/plan-classes.body";

/** KV key of the latest published table (JSON, the body of GET /v1/plan-classes). */
const PLAN_CLASSES_KV_KEY = "central/plan-classes";

/** The local projects of one database report live: their app versions as they are now (not deprecated). */
async function localReports(db: Db, now: number): Promise<ContributedVersion[]> {
  const rows = await db
    .select({ slug: projects.slug, app: apps.name, v: appVersions })
    .from(appVersions)
    .innerJoin(apps, and(eq(apps.projectId, appVersions.projectId), eq(apps.id, appVersions.appId)))
    .innerJoin(projects, eq(projects.id, appVersions.projectId))
    .where(and(eq(appVersions.deprecated, false), eq(apps.deprecated, false), livesHere));
  return rows.map((r) => ({
    source: `local/${r.slug}`,
    app: r.app,
    planClass: r.v.planClass,
    pfcN: r.v.pfcN,
    pfcScale: r.v.pfcScale,
    expavgCredit: r.v.expavgCredit,
    expavgTime: r.v.expavgTime,
    reportedAt: now,
  }));
}

async function contributedReports(db: Db, now: number): Promise<ContributedVersion[]> {
  const rows = await db
    .select()
    .from(centralContributions)
    .where(gte(centralContributions.reportedAt, now - CENTRAL_STALE_AFTER));
  return rows.map((r) => ({
    source: `contributor/${r.contributorId}/${r.project}`,
    app: r.app,
    planClass: r.planClass,
    pfcN: r.pfcN,
    pfcScale: r.pfcScale,
    expavgCredit: r.expavgCredit,
    expavgTime: r.expavgTime,
    reportedAt: r.reportedAt,
  }));
}

/**
 * Reads every database that holds projects (a database that fails is logged and left out:
 * the table is published from the others) and the contributors' reports in the registry.
 */
export async function publishPlanClassScales(env: object, kv: KVNamespace, now: number): Promise<string> {
  const registry = projectDatabase(env, DEFAULT_BINDING);
  const local = await inEachProjectDatabase(env, "plan-class-scales", (db) => localReports(db, now));
  const reports = [...local.values.flat(), ...(await contributedReports(registry, now))];
  const table = computeScaleTable(reports, now);
  const rows = [
    ...table.planClasses.map((r) => ({ ...r, kind: "plan_class" })),
    ...table.procTypes.map((r) => ({ ...r, kind: "proc_type" })),
  ];
  const nsources = new Set(reports.map((r) => r.source)).size;
  // A run at the same instant as an earlier one replaces it.
  await runBatch(registry, [
    sql`DELETE FROM ${planClassScales} WHERE version = ${now}`,
    sql`INSERT OR REPLACE INTO ${planClassScaleVersions} (version, nsources) VALUES (${now}, ${nsources})`,
    ...(rows.length === 0
      ? []
      : [
          insertFromJson(
            sql`${planClassScales}`,
            [
              [planClassScales.version, sql`${now}`],
              [planClassScales.kind, "kind"],
              [planClassScales.name, "name"],
              [planClassScales.procType, "procType"],
              [planClassScales.scale, "scale"],
              [planClassScales.recentCredit, "recentCredit"],
              [planClassScales.nprojects, "nprojects"],
              [planClassScales.nversions, "nversions"],
            ],
            rows,
          ),
        ]),
  ]);
  await kv.put(PLAN_CLASSES_KV_KEY, JSON.stringify(scaleTableBody(await loadPublishedTable(registry, now))));
  const skipped = local.failed.length > 0 ? `; skipped database(s) ${local.failed.join(", ")} (failed, logged)` : "";
  return `plan-class table version ${now}: ${table.planClasses.length} plan classes from ${nsources} projects${skipped}`;
}

/**
 * The latest table: KV (the job's copy), or D1 when the key is missing (then KV is filled).
 * GET /v1/plan-classes and the /central page read it.
 */
export async function latestScaleTable(c: Context<AppEnv>): Promise<ScaleTableBody> {
  const cached = await c.env.KV.get<ScaleTableBody>(PLAN_CLASSES_KV_KEY, "json");
  if (cached) return cached;
  const table = await loadPublishedTable(c.var.registry);
  const body = scaleTableBody(table);
  if (table) c.executionCtx.waitUntil(c.env.KV.put(PLAN_CLASSES_KV_KEY, JSON.stringify(body)));
  return body;
}
