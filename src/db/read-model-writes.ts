/**
 * What a pass adds for the read side: the project's own credit, and the subjects whose marks
 * tell the minute cron which KV snapshots to rewrite (passes never write KV:
 * docs/public-reads.md). History buckets are written before the grants (history-transitions.ts).
 */
import { type SQL, sql } from "drizzle-orm";
import type { Attribution, Grant } from "../credit/pass";
import { dayOf } from "../credit/history";
import { PROJECT_CREDIT_COLUMNS, type RunField, creditAssignments } from "./credit-columns";
import { PROJECT_SUBJECT, type SubjectRef } from "./kv-marks";
import { type CreditSubject, projects } from "./schema";
import { name } from "./sql-helpers";
import { grantRun, setClause } from "./stat-updates";

/**
 * The whole pass is one grant run on the project's row (its columns: PROJECT_CREDIT_COLUMNS);
 * the same update starts the project's new day (history-transitions.ts) and raises queue_seq
 * past the number the pass's queue rows took (queue-numbers.ts).
 */
export function projectCreditWrite(projectId: number, now: number, grants: readonly Grant[]): SQL[] {
  if (grants.length === 0) return [];
  const run = grantRun(
    now,
    grants.map((g) => ({ credit: g.credit, start: g.startTime })),
  );
  const fields: Record<RunField, SQL> = {
    now: sql`${now}`,
    day: sql`${dayOf(now)}`,
    credit: sql`${run.first.credit}`,
    start: sql`${run.first.start}`,
    rest: sql`${run.restCredit}`,
    sum: sql`${grants.reduce((sum, x) => sum + x.credit, 0)}`,
    add: sql`${run.first.credit + run.restCredit}`,
  };
  return [
    sql`UPDATE ${projects} SET ${setClause(creditAssignments(PROJECT_CREDIT_COLUMNS, (f) => fields[f]))} WHERE ${name(projects.id)} = ${projectId}`,
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
