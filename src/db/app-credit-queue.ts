/**
 * Per-app credit through a queue (schema.ts app_credit_queue): a pass appends ONE row with its
 * grant runs per (user, app) and (team, app); a batch of passes appends one row for all of
 * them, each run with its pass's `now`. The row takes the next of the batch's queue numbers
 * (queue-numbers.ts). The hourly job folds
 * the queue in order (src/credit/app-credit-fold.ts) and writes each per-app row once.
 *
 * Exactly once: a fold's batch writes its rows only while the project's
 * app_credit_folded_through is still the value it read, raises it to the last row folded, and
 * deletes the rows at or below it: a fold that lost a race, or is run again, changes nothing.
 */
import { type AnyColumn, type SQL, and, asc, eq, gt, sql } from "drizzle-orm";
import { type AppCreditRow, type AppCreditRun, applyAppCreditRun } from "../credit/app-credit-fold";
import { runBatch } from "./batch";
import type { Db } from "./client";
import type { GrantGroups, GrantPart } from "./grant-groups";
import { markSubjects } from "./kv-marks";
import { appCreditQueue, apps, creditTeams, creditUsers, projects } from "./schema";
import type { QueueNumbers } from "./queue-numbers";
import { chunks, jsonList, name } from "./sql-helpers";
import { grantRun } from "./stat-updates";

/**
 * A queued run: [kind (0 user, 1 team), holder id, app id, first credit, first start, rest
 * credit, jobs, and the time it was granted when not the row's `now` (a batch's earlier passes)].
 */
type QueuedRun = [
  kind: 0 | 1,
  holderId: number,
  appId: number,
  firstCredit: number,
  firstStart: number,
  restCredit: number,
  jobs: number,
  now?: number,
];

function runsOf(kind: 0 | 1, now: number, groups: ReadonlyMap<string, readonly GrantPart[]>, rowNow: number): QueuedRun[] {
  return [...groups].map(([key, parts]) => {
    const [holderId, appId] = key.split("/").map(Number) as [number, number];
    const run = grantRun(now, parts);
    const jobs = parts.filter((p) => p.job !== false).length;
    const queued: QueuedRun = [kind, holderId, appId, run.first.credit, run.first.start, run.restCredit, jobs];
    if (now !== rowNow) queued.push(now);
    return queued;
  });
}

/** The per-app credit of one pass (`now`, its grant groups), in the order the fold applies it. */
export interface TimedGroups {
  readonly now: number;
  readonly groups: GrantGroups;
}

/**
 * The per-app credit of passes decided in order, as ONE queue row dated at the last one's
 * `now`, taking the next of the batch's queue numbers. Runs of earlier passes carry their own `now`.
 */
export function appCreditQueueWrites(projectId: number, passes: readonly TimedGroups[], queue: QueueNumbers): SQL[] {
  if (passes.length === 0) return [];
  const rowNow = passes.at(-1)!.now;
  const runs = passes.flatMap(({ now, groups }) => [
    ...runsOf(0, now, groups.userApps, rowNow),
    ...runsOf(1, now, groups.teamApps, rowNow),
  ]);
  if (runs.length === 0) return [];
  const q = appCreditQueue;
  return [
    sql`INSERT INTO ${q} (${name(q.projectId)}, ${name(q.id)}, ${name(q.now)}, ${name(q.runs)})
      SELECT ${projectId}, ${queue.next(q)}, ${rowNow}, ${JSON.stringify(runs)} FROM ${projects} WHERE ${name(projects.id)} = ${projectId}`,
  ];
}

const keyOf = (kind: number, holderId: number, appId: number) => `${kind}/${holderId}/${appId}`;

/** A queued run (its JSON, or parsed) as the fold applies it: at its own `now`, else its row's. */
export function queuedAppCreditRun(rowNow: number, queued: string | QueuedRun): { holderId: number; appId: number; run: AppCreditRun } {
  const r = typeof queued === "string" ? (JSON.parse(queued) as QueuedRun) : queued;
  return { holderId: r[1], appId: r[2], run: { now: r[7] ?? rowNow, firstCredit: r[3], firstStart: r[4], restCredit: r[5], jobs: r[6] } };
}

/**
 * The runs the fold has not applied yet to these users' or teams' per-app rows, in the order
 * it will apply them (queue row, then run), with their app's name: a read applies them to the
 * stored rows (applyAppCreditRun) as the fold will, so it shows every grant at once. Read in
 * the same batch as the rows, so a fold is either wholly in the rows or wholly here.
 *
 * D1 counts every element json_each yields as a row read, and a queue row holds a pass's runs
 * for all its users and teams (hundreds): only the rows whose JSON names one of `ids` as a
 * run's holder (the text `[kind,id,` begins a run and nothing else: appCreditQueueWrites
 * writes JSON.stringify of number arrays) are taken apart. Rows read: the project's queue rows
 * since the last fold (one per pass, at most an hour's) times (1 + ids), plus the runs of the
 * rows that name one of them, plus an app per pending run.
 */
export function pendingAppCreditQuery(db: Db, projectId: number, kind: "users" | "teams", ids: readonly number[]) {
  const q = appCreditQueue;
  const k = kind === "users" ? 0 : 1;
  const at = (i: number) => sql.raw(`json_extract(j.value, '$[${i}]')`);
  const folded = sql`(SELECT ${name(projects.appCreditFoldedThrough)} FROM ${projects} WHERE ${name(projects.id)} = ${projectId})`;
  const namesOne = sql`EXISTS (SELECT 1 FROM json_each(${JSON.stringify(ids)}) AS i WHERE instr(${name(q.runs)}, ${sql.raw(`'[${k},'`)} || i.value || ',') > 0)`;
  // MATERIALIZED: the rows that name one are picked before any is taken apart (a plain join
  // lets SQLite take every row apart first).
  const naming = sql`(WITH m AS MATERIALIZED (SELECT ${name(q.id)} AS id, ${name(q.now)} AS now, ${name(q.runs)} AS runs FROM ${q}
    WHERE ${name(q.projectId)} = ${projectId} AND ${name(q.id)} > ${folded} AND ${namesOne}) SELECT * FROM m) AS m`;
  // The app's name by a lookup per matching run: a join would let the planner scan the apps first.
  const app = sql<
    string | null
  >`(SELECT ${name(apps.name)} FROM ${apps} WHERE ${name(apps.projectId)} = ${projectId} AND ${name(apps.id)} = ${at(2)})`;
  return db
    .select({ rowNow: sql<number>`m.now`, run: sql<string>`j.value`, app })
    .from(naming)
    .innerJoin(sql`json_each(m.runs) AS j`, sql`1`)
    .where(and(sql`${at(0)} = ${sql.raw(String(k))}`, sql`${at(1)} IN ${jsonList(ids)}`))
    .orderBy(sql`m.id`, sql`j.key`);
}

/** The current rows of the keys, from both tables (reads only). */
async function currentRows(
  db: Db,
  projectId: number,
  keys: readonly { kind: 0 | 1; holderId: number; appId: number }[],
): Promise<Map<string, AppCreditRow>> {
  const out = new Map<string, AppCreditRow>();
  for (const kind of [0, 1] as const) {
    const t = kind === 0 ? creditUsers : creditTeams;
    const holder = kind === 0 ? creditUsers.userId : creditTeams.teamId;
    const pairs = keys.filter((k) => k.kind === kind).map((k) => [k.holderId, k.appId]);
    for (const part of chunks(pairs)) {
      const rows = await db
        .select({ holderId: holder, appId: t.appId, total: t.total, expavg: t.expavg, expavgTime: t.expavgTime, njobs: t.njobs })
        .from(t)
        .where(
          and(
            eq(t.projectId, projectId),
            sql`(${holder}, ${t.appId}) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${JSON.stringify(part)}))`,
          ),
        );
      for (const r of rows) out.set(keyOf(kind, r.holderId, r.appId), r);
    }
  }
  return out;
}

/** Absolute values for the folded rows, written only while the fold mark is still `through`. */
function upserts(projectId: number, through: number, rows: ReadonlyMap<string, AppCreditRow>): SQL[] {
  const unchanged = sql`(SELECT ${name(projects.appCreditFoldedThrough)} FROM ${projects} WHERE ${name(projects.id)} = ${projectId}) = ${through}`;
  const out: SQL[] = [];
  for (const kind of [0, 1] as const) {
    const t = kind === 0 ? creditUsers : creditTeams;
    const holder = kind === 0 ? creditUsers.userId : creditTeams.teamId;
    const list = [...rows]
      .filter(([k]) => k.startsWith(`${kind}/`))
      .map(([k, r]) => {
        const [, holderId, appId] = k.split("/").map(Number);
        return [holderId, appId, r.total, r.expavg, r.expavgTime, r.njobs];
      });
    const set = (c: AnyColumn) => sql`${name(c)} = excluded.${name(c)}`;
    for (const part of chunks(list)) {
      const v = (i: number) => sql.raw(`json_extract(j.value, '$[${i}]')`);
      out.push(sql`INSERT INTO ${t} (${name(t.projectId)}, ${name(holder)}, ${name(t.appId)}, ${name(t.total)}, ${name(t.expavg)}, ${name(t.expavgTime)}, ${name(t.njobs)})
        SELECT ${projectId}, ${v(0)}, ${v(1)}, ${v(2)}, ${v(3)}, ${v(4)}, ${v(5)} FROM json_each(${JSON.stringify(part)}) AS j WHERE ${unchanged}
        ON CONFLICT DO UPDATE SET ${set(t.total)}, ${set(t.expavg)}, ${set(t.expavgTime)}, ${set(t.njobs)}`);
    }
  }
  return out;
}

export interface FoldReport {
  /** Queue rows (passes) folded. */
  readonly passes: number;
  /** Per-app rows written. */
  readonly rows: number;
}

/** Folds up to `maxRows` queue rows of one project, oldest first, in one batch. */
export async function foldAppCredit(db: Db, projectId: number, maxRows: number): Promise<FoldReport> {
  const [project] = await db.select({ through: projects.appCreditFoldedThrough }).from(projects).where(eq(projects.id, projectId));
  if (!project) return { passes: 0, rows: 0 };
  const q = appCreditQueue;
  const queued = await db
    .select({ id: q.id, now: q.now, runs: q.runs })
    .from(q)
    .where(and(eq(q.projectId, projectId), gt(q.id, project.through)))
    .orderBy(asc(q.id))
    .limit(maxRows);
  if (queued.length === 0) return { passes: 0, rows: 0 };
  const runs = queued.flatMap((row) => (JSON.parse(row.runs) as QueuedRun[]).map((r) => ({ row, r })));
  const keys = [...new Map(runs.map(({ r }) => [keyOf(r[0], r[1], r[2]), { kind: r[0], holderId: r[1], appId: r[2] }])).values()];
  const current = await currentRows(db, projectId, keys);
  const folded = new Map<string, AppCreditRow>();
  for (const { row, r } of runs) {
    const key = keyOf(r[0], r[1], r[2]);
    folded.set(key, applyAppCreditRun(folded.get(key) ?? current.get(key), queuedAppCreditRun(row.now, r).run));
  }
  const last = queued.at(-1)!.id;
  await runBatch(db, [
    ...upserts(projectId, project.through, folded),
    sql`UPDATE ${projects} SET ${name(projects.appCreditFoldedThrough)} = ${last}
      WHERE ${name(projects.id)} = ${projectId} AND ${name(projects.appCreditFoldedThrough)} = ${project.through}`,
    // The public snapshots of the users and teams whose per-app credit changed.
    ...markSubjects(
      projectId,
      [...new Set([...folded.keys()].map((k) => k.split("/").slice(0, 2).join("/")))].map((k) => {
        const [kind, id] = k.split("/").map(Number);
        return { subject: kind === 0 ? ("user" as const) : ("team" as const), id: id! };
      }),
    ),
    // Also the rows a fold that lost a race left behind: whatever is at or below the mark is applied.
    sql`DELETE FROM ${q} WHERE ${name(q.projectId)} = ${projectId}
      AND ${name(q.id)} <= (SELECT ${name(projects.appCreditFoldedThrough)} FROM ${projects} WHERE ${name(projects.id)} = ${projectId})`,
  ]);
  return { passes: queued.length, rows: folded.size };
}
