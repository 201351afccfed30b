/** A project's public snapshot (totals, counts, daily history) and the list of all projects. */
import { livesHere } from "../db/project-db";
import { asc, count, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { hosts, projects, teams, users } from "../db/schema";
import { jsonList } from "../db/sql-helpers";
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

async function summaries(db: Db, rows: readonly ProjectRow[]): Promise<(ProjectSummary & { id: number })[]> {
  const counted = (table: typeof hosts | typeof users | typeof teams) =>
    db
      .select({ projectId: table.projectId, n: count() })
      .from(table)
      .where(sql`${table.projectId} IN ${jsonList(rows.map((p) => p.id))}`)
      .groupBy(table.projectId);
  const [h, u, t] = await db.batch([counted(hosts), counted(users), counted(teams)]);
  const n = (list: { projectId: number; n: number }[], id: number) => list.find((x) => x.projectId === id)?.n ?? 0;
  return rows.map((p) => ({
    id: p.id,
    slug: p.slug,
    name: p.name,
    url: p.url,
    create_time: p.createdAt,
    total_credit: p.totalCredit,
    expavg_credit: p.expavgCredit,
    expavg_time: p.expavgTime,
    users: n(u, p.id),
    hosts: n(h, p.id),
    teams: n(t, p.id),
  }));
}

export async function loadProjectSnapshot(db: Db, slug: string, fromDay: number): Promise<ProjectSnapshot | null> {
  const [row] = await db.select().from(projects).where(eq(projects.slug, slug));
  if (!row) return null;
  const [[summary], histories] = await Promise.all([summaries(db, [row]), loadHistories(db, row.id, "project", [0], fromDay)]);
  return { ...summary!, history: { from_day: fromDay, buckets: histories.get(0) ?? [] } };
}

/** Every project, from every database (each lists the projects that live in it), by slug. */
export async function loadProjectList(dbs: readonly Db[]): Promise<{ projects: ProjectSummary[] }> {
  const lists = await Promise.all(
    dbs.map(async (db) => summaries(db, await db.select().from(projects).where(livesHere).orderBy(asc(projects.slug)))),
  );
  const all = lists.flat().sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  return { projects: all.map(({ id: _id, ...summary }) => summary) };
}
