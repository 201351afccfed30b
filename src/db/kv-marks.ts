/**
 * Marks for the minute cron's KV refresh, kept as a queue (schema.ts kv_marks): whoever
 * changes what a public snapshot shows appends one row naming the subjects, in the same D1
 * batch as the change. The cron reads the queue (kv-refresh.ts).
 */
import { type SQL, and, eq, isNotNull, sql } from "drizzle-orm";
import type { Attribution } from "../credit/pass";
import type { CreditSubject } from "./schema";
import { hosts, kvMarks, projects } from "./schema";
import type { Db } from "./client";
import { chunks, name } from "./sql-helpers";

export interface SubjectRef {
  readonly subject: CreditSubject;
  readonly id: number;
}

/** The project as a whole: its totals, apps, app versions and leaderboards. */
export const PROJECT_SUBJECT: SubjectRef = { subject: "project", id: 0 };

/** Subjects per queue row: keeps one row's JSON far below D1's limits on a bound value. */
const KV_MARKS_PER_ROW = 1000;

/** One subject of one project, as a string: marks are deduplicated by it. */
export const markKey = (projectId: number, ref: SubjectRef) => `${projectId}/${ref.subject}/${ref.id}`;

const encode = (subjects: readonly SubjectRef[]) => JSON.stringify(subjects.map((s) => [s.subject, s.id]));

/**
 * Rows naming `subjects` (a pass's whole set of subjects: one row per thousand). A project
 * whose holders are read live (no holder snapshots: projects.holder_snapshots_since NULL) gets
 * only its own mark, and no row when `subjects` does not name it: the project row is read in
 * the statement itself, so every writer follows the setting without reading it first.
 */
export function markSubjects(projectId: number, subjects: readonly SubjectRef[]): SQL[] {
  return chunks(subjects, KV_MARKS_PER_ROW).map((part) => {
    const projectOnly = part.filter((s) => s.subject === "project");
    const since = name(projects.holderSnapshotsSince);
    return sql`INSERT INTO ${kvMarks} (${name(kvMarks.projectId)}, ${name(kvMarks.subjects)})
      SELECT ${projectId}, CASE WHEN ${since} IS NULL THEN ${encode(projectOnly)} ELSE ${encode(part)} END
      FROM ${projects} WHERE ${name(projects.id)} = ${projectId} AND (${since} IS NOT NULL OR ${projectOnly.length} > 0)`;
  });
}

/** One subject's mark, as a query a drizzle batch can hold beside the write it belongs to. */
export function markOne(db: Db, projectId: number, ref: SubjectRef) {
  return db.insert(kvMarks).values({ projectId, subjects: encode([ref]) });
}

/**
 * Marks the hosts of a user (those with a host_cpid, which their snapshots show only while the
 * owner consents to stats export): run when a user opts out. One row; nothing when the user has
 * no such host or the project's holders are read live. It reads the project's hosts (there is
 * no index by owner), which is why only a registration saying stats_export false runs it.
 */
export function markHostsOfUser(db: Db, projectId: number, userId: number) {
  return db.insert(kvMarks).select(
    db
      .select({
        id: sql<number>`NULL`.as("id"),
        projectId: sql<number>`${projectId}`.as("project_id"),
        subjects: sql<string>`json_group_array(json_array('host', ${hosts.id}))`.as("subjects"),
      })
      .from(hosts)
      .where(
        and(
          eq(hosts.projectId, projectId),
          eq(hosts.userId, userId),
          isNotNull(hosts.hostCpid),
          sql`EXISTS (SELECT 1 FROM ${projects} WHERE ${projects.id} = ${projectId} AND ${projects.holderSnapshotsSince} IS NOT NULL)`,
        ),
      )
      .having(sql`count(*) > 0`),
  );
}

/** The project snapshot's mark for a project known only by its slug (used at creation). */
export function markProjectBySlug(db: Db, slug: string) {
  return db.insert(kvMarks).select(
    db
      .select({
        id: sql<number>`NULL`.as("id"),
        projectId: projects.id,
        subjects: sql<string>`${encode([PROJECT_SUBJECT])}`.as("subjects"),
      })
      .from(projects)
      .where(sql`${projects.slug} = ${slug}`),
  );
}

export interface QueuedMarks {
  /** The queue rows read (the cron deletes exactly these). */
  readonly ids: number[];
  /** Each project's distinct subjects, oldest mark first. */
  readonly byProject: Map<number, SubjectRef[]>;
}

/**
 * The oldest queue rows of every project, enough of them to name `perProject` subjects (a
 * row may overshoot by one row's worth): bounded however long the queue has grown.
 */
export async function readQueue(db: Db, perProject: number): Promise<QueuedMarks> {
  const rows = await db.all<{ id: number; project_id: number; subjects: string }>(sql`
    SELECT id, project_id, subjects FROM (
      SELECT id, project_id, subjects,
        sum(json_array_length(subjects)) OVER (PARTITION BY project_id ORDER BY id ROWS UNBOUNDED PRECEDING)
          - json_array_length(subjects) AS before
      FROM ${kvMarks})
    WHERE before < ${perProject} ORDER BY id`);
  const byProject = new Map<number, SubjectRef[]>();
  const seen = new Set<string>();
  for (const row of rows) {
    const list = byProject.get(row.project_id) ?? [];
    byProject.set(row.project_id, list);
    for (const [subject, id] of JSON.parse(row.subjects) as [CreditSubject, number][]) {
      const key = markKey(row.project_id, { subject, id });
      if (seen.has(key)) continue;
      seen.add(key);
      list.push({ subject, id });
    }
  }
  return { ids: rows.map((r) => r.id), byProject };
}

/** Deletes the rows read and queues again what was not written: one batch, so nothing is lost. */
export function settleQueue(ids: readonly number[], left: ReadonlyMap<number, readonly SubjectRef[]>): SQL[] {
  return [
    ...chunks(ids, 5000).map(
      (part) => sql`DELETE FROM ${kvMarks} WHERE ${name(kvMarks.id)} IN (SELECT value FROM json_each(${JSON.stringify(part)}))`,
    ),
    ...[...left].flatMap(([projectId, subjects]) => markSubjects(projectId, subjects)),
  ];
}

/** Distinct subjects waiting in the queue (each project's). */
export async function countQueued(db: Db): Promise<number> {
  const [row] = await db.all<{ n: number }>(sql`
    SELECT count(*) AS n FROM (SELECT DISTINCT ${name(kvMarks.projectId)}, j.value FROM ${kvMarks}, json_each(${kvMarks.subjects}) AS j)`);
  return row?.n ?? 0;
}

/** Everything a pass may have changed the public view of: its hosts, users, teams, project. */
export function dirtySubjects(attributions: readonly Attribution[]): SubjectRef[] {
  if (attributions.length === 0) return [];
  const seen = new Set<string>();
  const out: SubjectRef[] = [PROJECT_SUBJECT];
  const add = (subject: CreditSubject, id: number) => {
    const key = `${subject}/${id}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ subject, id });
  };
  for (const a of attributions) {
    add("host", a.hostId);
    if (a.userId !== 0) add("user", a.userId);
    if (a.userId !== 0 && a.teamId !== 0) add("team", a.teamId);
  }
  return out;
}
