/**
 * What a pass adds for the read side: the project's own credit, the day's history bucket of
 * every subject it credited, and the marks that tell the minute cron which KV snapshots to
 * rewrite (passes never write KV: DESIGN.md, Reads from KV).
 */
import { type SQL, sql } from "drizzle-orm";
import { dayOf } from "../credit/history";
import type { Attribution, Grant, PassEffects } from "../credit/pass";
import type { GrantGroups, GrantPart } from "./grant-groups";
import { PROJECT_SUBJECT, type SubjectRef, markSubjects } from "./kv-marks";
import { type CreditSubject, creditHistory, creditHistoryMonthly, hosts, projects, teams, users } from "./schema";
import { chunks, name, ref, withJsonRows } from "./sql-helpers";
import { grantRun, recentAverageRun, setClause } from "./stat-updates";

export function readModelWrites(
  projectId: number,
  now: number,
  effects: Pick<PassEffects, "grants" | "attributions">,
  groups: GrantGroups,
): SQL[] {
  return [
    ...projectCreditWrite(projectId, now, effects.grants),
    ...historyWrites(projectId, now, groups, effects.grants),
    ...markSubjects(projectId, dirtySubjects(effects.attributions)),
  ];
}

/** The whole pass is one grant run on the project's row (the same update as a user's). */
function projectCreditWrite(projectId: number, now: number, grants: readonly Grant[]): SQL[] {
  if (grants.length === 0) return [];
  const run = grantRun(now, grants.map((g) => ({ credit: g.credit, start: g.startTime })));
  const rac = recentAverageRun.sql(
    { avg: name(projects.expavgCredit), time: name(projects.expavgTime) },
    { now: sql`${now}`, credit: sql`${run.first.credit}`, start: sql`${run.first.start}`, rest: sql`${run.restCredit}` },
  );
  return [
    sql`UPDATE ${projects} SET ${setClause([
      [projects.totalCredit.name, sql`${name(projects.totalCredit)} + ${run.first.credit + run.restCredit}`],
      [projects.expavgCredit.name, rac.avg],
      [projects.expavgTime.name, rac.time],
    ])} WHERE ${name(projects.id)} = ${projectId}`,
  ];
}

const sumOf = (parts: readonly GrantPart[]) => parts.reduce((sum, p) => sum + p.credit, 0);

/**
 * `ON CONFLICT` merge into a history bucket (a day's or a month's): credit added, the RAC pair
 * with the later time kept (its twin: rollUp in src/credit/history-months.ts).
 */
export function bucketMerge(t: typeof creditHistory | typeof creditHistoryMonthly): SQL {
  return sql`ON CONFLICT DO UPDATE SET ${setClause([
    [t.credit.name, sql`${name(t.credit)} + excluded.${name(t.credit)}`],
    [
      t.expavgCredit.name,
      sql`CASE WHEN excluded.${name(t.expavgTime)} >= ${name(t.expavgTime)} THEN excluded.${name(t.expavgCredit)} ELSE ${name(t.expavgCredit)} END`,
    ],
    [t.expavgTime.name, sql`max(${name(t.expavgTime)}, excluded.${name(t.expavgTime)})`],
  ])}`;
}

/**
 * Adds the pass's credit to each subject's bucket of the day of `now`, and copies the RAC pair
 * the subject has after this pass (the latest pair wins when passes arrive out of order).
 */
function historyWrites(projectId: number, now: number, groups: GrantGroups, grants: readonly Grant[]): SQL[] {
  const day = dayOf(now);
  const h = creditHistory;
  const upsert = bucketMerge(h);
  const columns = sql`(${name(h.projectId)}, ${name(h.subject)}, ${name(h.entityId)}, ${name(h.day)}, ${name(h.credit)}, ${name(h.expavgCredit)}, ${name(h.expavgTime)})`;
  const g = (f: string) => ref("g", f);
  const fromHolders = (subject: CreditSubject, table: typeof hosts | typeof users | typeof teams, group: Map<string, GrantPart[]>) =>
    chunks([...group].map(([id, parts]) => ({ id: Number(id), credit: sumOf(parts) }))).map(
      // CROSS JOIN keeps the JSON rows the outer loop (each holder found by its key).
      (rows) => sql`${withJsonRows("g", ["id", "credit"], rows)} INSERT INTO ${h} ${columns}
        SELECT ${projectId}, ${subject}, t.${name(table.id)}, ${day}, ${g("credit")}, t.${name(table.expavgCredit)}, t.${name(table.expavgTime)}
        FROM g CROSS JOIN ${table} AS t
        WHERE t.${name(table.projectId)} = ${projectId} AND t.${name(table.id)} = ${g("id")} ${upsert}`,
    );
  const total = grants.reduce((sum, x) => sum + x.credit, 0);
  return [
    ...fromHolders("host", hosts, groups.hosts),
    ...fromHolders("user", users, groups.users),
    ...fromHolders("team", teams, groups.teams),
    ...(grants.length === 0
      ? []
      : [
          sql`INSERT INTO ${h} ${columns}
            SELECT ${projectId}, ${"project"}, 0, ${day}, ${total}, ${name(projects.expavgCredit)}, ${name(projects.expavgTime)}
            FROM ${projects} WHERE ${name(projects.id)} = ${projectId} ${upsert}`,
        ]),
  ];
}

/** Everything a pass may have changed the public view of: its hosts, users, teams, project. */
function dirtySubjects(attributions: readonly Attribution[]): SubjectRef[] {
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
