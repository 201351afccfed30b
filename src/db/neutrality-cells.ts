/**
 * What the neutrality job reads from one database: per project living here, each host's
 * (by host_cpid) window of credit, device-seconds and valid results per resource class, summed
 * over the host's app versions of that class. Hosts with BOINC's default benchmark and
 * anonymous-platform versions (no app_versions row) are left out.
 */
import { sql } from "drizzle-orm";
import { BENCHMARK_FAILED_FPOPS } from "../credit/constants";
import { NEUTRALITY } from "../credit/parameters";
import type { NeutralCell } from "../credit/neutrality-fit";
import { neutralPeriodOf } from "../credit/neutrality-window";
import { planClassToProcType } from "../credit/plan-class";
import type { Db } from "./client";
import { NEUTRAL_COLUMNS, neutralColumnRefs } from "./neutral-rows";
import { livesHere } from "./project-db";
import { appVersions, hostAppVersions, hosts, projects } from "./schema";
import { ref, withJsonRows } from "./sql-helpers";
import { neutralWindowRead } from "./stat-updates";

/** A cell of one resource class ("cpu" or the GPU's processor type). */
export interface ClassCell extends NeutralCell {
  readonly resource: string;
}

/** One project's cells in the window ending at `t` (its slug names the project). */
async function projectCells(db: Db, project: { id: number; slug: string }, t: number): Promise<ClassCell[]> {
  const versions = await db
    .select({ id: appVersions.id, planClass: appVersions.planClass })
    .from(appVersions)
    .where(sql`${appVersions.projectId} = ${project.id}`);
  if (versions.length === 0) return [];
  const classOf = versions.map((v) => ({ id: v.id, resource: planClassToProcType(v.planClass) }));
  const h = (column: string) => ref("h", column);
  const w = neutralWindowRead.sql(neutralColumnRefs(h), t);
  const rows = await db.all<{ host: string; resource: string; credit: number; deviceSeconds: number; results: number }>(
    sql`${withJsonRows("vc", ["id", "resource"], classOf)}
      SELECT hs.${sql.identifier(hosts.hostCpid.name)} AS host, vc.resource AS resource,
        SUM(${w.credit}) AS credit, SUM(${w.deviceSeconds}) AS deviceSeconds, SUM(${w.results}) AS results
      FROM ${hostAppVersions} AS h
        JOIN vc ON vc.id = h.${sql.identifier(hostAppVersions.appVersionId.name)}
        JOIN ${hosts} AS hs ON hs.project_id = h.project_id AND hs.id = h.host_id
      WHERE h.project_id = ${project.id} AND ${h(NEUTRAL_COLUMNS.period)} >= ${neutralPeriodOf(t) - 1}
        AND hs.host_cpid IS NOT NULL AND (hs.p_fpops IS NULL OR hs.p_fpops <> ${BENCHMARK_FAILED_FPOPS})
      GROUP BY hs.host_cpid, vc.resource
      -- The fit's own floor (cellQualifies), here too so that thin cells never leave the database.
      HAVING SUM(${w.results}) >= ${NEUTRALITY.minResults} AND SUM(${w.deviceSeconds}) >= ${NEUTRALITY.minDeviceHours * 3600}`,
  );
  return rows.map((r) => ({ ...r, project: project.slug }));
}

/** Every cell of the projects that live in `db`. */
export async function neutralityCells(db: Db, t: number): Promise<ClassCell[]> {
  const here = await db.select({ id: projects.id, slug: projects.slug }).from(projects).where(livesHere);
  const out: ClassCell[] = [];
  for (const p of here) out.push(...(await projectCells(db, p, t)));
  return out;
}
