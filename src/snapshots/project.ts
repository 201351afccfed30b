/** A project's public snapshot (totals, counts, daily history) and the list of all projects. */
import { asc, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { projects } from "../db/schema";
import { type StoredHistory, loadHistories } from "./holders";

export interface ProjectSummary {
  readonly slug: string;
  readonly name: string;
  readonly url: string | null;
  readonly create_time: number;
  readonly total_credit: number;
  readonly expavg_credit: number;
  readonly expavg_time: number;
  readonly users: number;
  readonly hosts: number;
  readonly teams: number;
}

export interface ProjectSnapshot extends ProjectSummary {
  /** Internal: what the D1 fallbacks of the project's other reads key on. Never shown. */
  readonly id: number;
  readonly history: StoredHistory;
}

type ProjectRow = typeof projects.$inferSelect;

/** Counts come from the project row (kept by triggers): one row read per project. */
function summary(p: ProjectRow): ProjectSummary & { id: number } {
  return {
    id: p.id,
    slug: p.slug,
    name: p.name,
    url: p.url,
    create_time: p.createdAt,
    total_credit: p.totalCredit,
    expavg_credit: p.expavgCredit,
    expavg_time: p.expavgTime,
    users: p.userCount,
    hosts: p.hostCount,
    teams: p.teamCount,
  };
}

export async function loadProjectSnapshot(db: Db, slug: string, fromDay: number): Promise<ProjectSnapshot | null> {
  const [row] = await db.select().from(projects).where(eq(projects.slug, slug));
  if (!row) return null;
  const histories = await loadHistories(db, row.id, "project", [0], fromDay);
  return { ...summary(row), history: { from_day: fromDay, buckets: histories.get(0) ?? [] } };
}

export async function loadProjectList(db: Db): Promise<{ projects: ProjectSummary[] }> {
  const rows = await db.select().from(projects).orderBy(asc(projects.slug));
  return { projects: rows.map((row) => {
    const { id: _id, ...shown } = summary(row);
    return shown;
  }) };
}
