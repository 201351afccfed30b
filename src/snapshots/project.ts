/** A project's public snapshot (totals, counts, daily history) and the list of all projects. */
import { asc, eq, sql } from "drizzle-orm";
import { withOpenDay } from "../credit/history";
import { type OpenDatabase, inEachProjectDatabase, livesHere } from "../db/project-db";
import type { Db } from "../db/client";
import { queuedBucketsQuery } from "../db/history-queue";
import { projects } from "../db/schema";
import { type HistoryRows, type StoredHistory, historiesFrom, historyQueries, historyStart, withHistoryDatabases } from "./holders";

export interface ProjectSummary {
  readonly slug: string;
  readonly name: string;
  readonly url: string | null;
  readonly create_time: number;
  /** The earliest grant's time; null before the first. Absent in a snapshot written before it was kept. */
  readonly first_credit_time?: number | null;
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
    first_credit_time: p.firstCreditTime,
    total_credit: p.totalCredit,
    expavg_credit: p.expavgCredit,
    expavg_time: p.expavgTime,
    users: p.userCount,
    hosts: p.hostCount,
    teams: p.teamCount,
  };
}

export async function loadProjectSnapshot(db: Db, slug: string, fromDay: number, open: OpenDatabase): Promise<ProjectSnapshot | null> {
  // One D1 batch (one transaction), so the totals and the history come from the same moment.
  const projectId = sql`(SELECT ${projects.id} FROM ${projects} WHERE ${projects.slug} = ${slug})`;
  const start = historyStart(fromDay);
  const [[row], queued, ...historyRows] = await db.batch([
    db.select().from(projects).where(eq(projects.slug, slug)),
    queuedBucketsQuery(db, projectId, "project", [0]),
    ...historyQueries(db, projectId, "project", [0], start),
  ]);
  if (!row) return null;
  const histories = await withHistoryDatabases(
    historiesFrom([0], historyRows as HistoryRows),
    row.historyDatabases,
    open,
    row.id,
    "project",
    [0],
    start,
    queued,
  );
  return {
    ...summary(row),
    history: { from_day: start, buckets: withOpenDay(histories.buckets.get(0) ?? [], row), monthly_before: histories.monthlyBefore },
  };
}

/** Every project, from every database (each lists the projects that live in it), by slug. */
/** The project list over every database that holds projects; one that fails is logged and left out. */
export async function loadProjectListOf(env: object): ReturnType<typeof loadProjectList> {
  const { values } = await inEachProjectDatabase(env, "project list", (db) => loadProjectList([db]));
  const all = values.flatMap((v) => v.projects).sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  return { projects: all };
}

async function loadProjectList(dbs: readonly Db[]): Promise<{ projects: ProjectSummary[] }> {
  const lists = await Promise.all(dbs.map((db) => db.select().from(projects).where(livesHere).orderBy(asc(projects.slug))));
  const all = lists
    .flat()
    .map(summary)
    .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  return { projects: all.map(({ id: _id, ...shown }) => shown) };
}
