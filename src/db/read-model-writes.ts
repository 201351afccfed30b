/**
 * What a pass adds for the read side: the project's own credit, and the subjects whose marks
 * tell the minute cron which KV snapshots to rewrite (passes never write KV:
 * docs/public-reads.md). History buckets are written before the grants (history-transitions.ts).
 */
import { type SQL, sql } from "drizzle-orm";
import type { Attribution, Grant } from "../credit/pass";
import { dayCreditAssignment } from "./history-transitions";
import { PROJECT_SUBJECT, type SubjectRef } from "./kv-marks";
import { type CreditSubject, projects } from "./schema";
import { passQueueRaise } from "./queue-numbers";
import { name } from "./sql-helpers";
import { grantRun, recentAverageRun, setClause } from "./stat-updates";

/**
 * The whole pass is one grant run on the project's row (the same update as a user's); the same
 * update starts the project's new day (history-transitions.ts) and raises queue_seq past the
 * number the pass's queue rows took (queue-numbers.ts).
 */
export function projectCreditWrite(projectId: number, now: number, grants: readonly Grant[]): SQL[] {
  if (grants.length === 0) return [];
  const run = grantRun(
    now,
    grants.map((g) => ({ credit: g.credit, start: g.startTime })),
  );
  const rac = recentAverageRun.sql(
    { avg: name(projects.expavgCredit), time: name(projects.expavgTime) },
    { now: sql`${now}`, credit: sql`${run.first.credit}`, start: sql`${run.first.start}`, rest: sql`${run.restCredit}` },
  );
  return [
    sql`UPDATE ${projects} SET ${setClause([
      [projects.totalCredit.name, sql`${name(projects.totalCredit)} + ${run.first.credit + run.restCredit}`],
      [projects.expavgCredit.name, rac.avg],
      [projects.expavgTime.name, rac.time],
      dayCreditAssignment(projects, now, sql`${grants.reduce((sum, x) => sum + x.credit, 0)}`),
      passQueueRaise(),
      // The earliest grant's time: a pass posted later for older history moves it back.
      [projects.firstCreditTime.name, sql`min(coalesce(${name(projects.firstCreditTime)}, ${now}), ${now})`],
    ])} WHERE ${name(projects.id)} = ${projectId}`,
  ];
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
