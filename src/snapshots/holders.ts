/**
 * A host's, user's or team's public snapshot, loaded from D1: what the KV key holds and what
 * a missing key falls back to. Many at once, for the cron.
 */
import { type AnyColumn, type SQL, and, asc, eq, gte, lt, max, sql } from "drizzle-orm";
import type { DayBucket } from "../credit/history";
import type { Db } from "../db/client";
import { type CreditSubject, apps, creditHistory, creditTeams, creditUsers, hosts, teams, users } from "../db/schema";
import { jsonList } from "../db/sql-helpers";
import type { HolderKind } from "./keys";

/** `column IN (ids)` with the ids as one bound parameter (D1 allows 100 per statement). */
const among = (column: AnyColumn, ids: readonly number[]): SQL => sql`${column} IN ${jsonList(ids)}`;

export interface AppCredit {
  readonly app: string;
  readonly total_credit: number;
  readonly expavg_credit: number;
  readonly expavg_time: number;
  readonly jobs: number;
}

/** Days with grants from `from_day` on, plus the last one before it (it carries the RAC in). */
export interface StoredHistory {
  readonly from_day: number;
  readonly buckets: readonly DayBucket[];
}

export interface HolderSnapshot {
  readonly id: number;
  readonly name: string | null;
  readonly create_time: number;
  readonly total_credit: number;
  readonly expavg_credit: number;
  readonly expavg_time: number;
  readonly user_id?: number;
  readonly host_cpid?: string | null;
  readonly team_id?: number;
  readonly cpid?: string | null;
  /** Users and teams: credit per app (BOINC's credit_user / credit_team). */
  readonly apps?: readonly AppCredit[];
  readonly history: StoredHistory;
}

const tables = { hosts, users, teams } as const;
export const SUBJECT_OF_KIND: Record<HolderKind, CreditSubject> = { hosts: "host", users: "user", teams: "team" };

/**
 * The two queries for the history of subjects from `fromDay` on (and each one's last bucket
 * before it), to go into the caller's batch so the history is read at the same moment as the
 * totals beside it. `projectId` may be a subquery.
 */
export function historyQueries(db: Db, projectId: number | SQL, subject: CreditSubject, ids: readonly number[], fromDay: number) {
  const h = creditHistory;
  const of = and(eq(h.projectId, projectId as number), eq(h.subject, subject), among(h.entityId, ids));
  const lastBefore = db
    .select({ entityId: h.entityId, day: max(h.day).as("last_day") })
    .from(h)
    .where(and(of, lt(h.day, fromDay)))
    .groupBy(h.entityId)
    .as("last_before");
  const bucket = { entityId: h.entityId, day: h.day, credit: h.credit, expavgCredit: h.expavgCredit, expavgTime: h.expavgTime };
  return [
    db
      .select(bucket)
      .from(h)
      .innerJoin(lastBefore, and(eq(h.entityId, lastBefore.entityId), eq(h.day, lastBefore.day)))
      .where(of),
    db.select(bucket).from(h).where(and(of, gte(h.day, fromDay))).orderBy(asc(h.entityId), asc(h.day)),
  ] as const;
}

type BucketRow = DayBucket & { entityId: number };

/** Each subject's buckets from what `historyQueries` read (carried bucket first). */
export function historiesFrom(ids: readonly number[], carried: readonly BucketRow[], recent: readonly BucketRow[]): Map<number, DayBucket[]> {
  const out = new Map<number, DayBucket[]>(ids.map((id) => [id, []]));
  for (const { entityId, ...b } of [...carried, ...recent]) out.get(entityId)?.push(b);
  return out;
}

function appCreditQuery(db: Db, projectId: number, kind: "users" | "teams", ids: readonly number[]) {
  const t = kind === "users" ? creditUsers : creditTeams;
  const owner = kind === "users" ? creditUsers.userId : creditTeams.teamId;
  return db
    .select({ owner, app: apps.name, total: t.total, expavg: t.expavg, expavgTime: t.expavgTime, njobs: t.njobs })
    .from(t)
    .innerJoin(apps, and(eq(apps.projectId, t.projectId), eq(apps.id, t.appId)))
    .where(and(eq(t.projectId, projectId), among(owner, ids)))
    .orderBy(asc(apps.id));
}

type AppCreditRow = Awaited<ReturnType<typeof appCreditQuery>>[number];

function appCreditFrom(ids: readonly number[], rows: readonly AppCreditRow[]): Map<number, AppCredit[]> {
  const out = new Map<number, AppCredit[]>(ids.map((id) => [id, []]));
  for (const r of rows) {
    out.get(r.owner)?.push({ app: r.app, total_credit: r.total, expavg_credit: r.expavg, expavg_time: r.expavgTime, jobs: r.njobs });
  }
  return out;
}

export type HolderRow = typeof hosts.$inferSelect | typeof users.$inferSelect | typeof teams.$inferSelect;

/** A holder's own fields, with BOINC's names. */
export function holderFromRow(kind: HolderKind, row: HolderRow): Omit<HolderSnapshot, "history" | "apps"> {
  const r = row as typeof hosts.$inferSelect & typeof users.$inferSelect;
  return {
    id: r.id,
    name: r.name,
    create_time: r.createTime,
    total_credit: r.totalCredit,
    expavg_credit: r.expavgCredit,
    expavg_time: r.expavgTime,
    ...(kind === "hosts" ? { user_id: r.userId, host_cpid: r.hostCpid } : {}),
    ...(kind === "users" ? { team_id: r.teamId, cpid: r.cpid } : {}),
  };
}

/** Snapshots of the holders that exist among `ids`, with history from `fromDay`. */
export async function loadHolderSnapshots(
  db: Db,
  projectId: number,
  kind: HolderKind,
  ids: readonly number[],
  fromDay: number,
): Promise<Map<number, HolderSnapshot>> {
  const table = tables[kind];
  // One D1 batch (one transaction): the total, the RAC, the history and the per-app credit
  // shown together all come from the same moment, never from either side of a pass.
  const holderRows = db
    .select()
    .from(table)
    .where(and(eq(table.projectId, projectId), among(table.id, ids)));
  const [carriedQ, recentQ] = historyQueries(db, projectId, SUBJECT_OF_KIND[kind], ids, fromDay);
  let rows: HolderRow[], carried: BucketRow[], recent: BucketRow[];
  let appCredit: Map<number, AppCredit[]> | null = null;
  if (kind === "hosts") {
    [rows, carried, recent] = await db.batch([holderRows, carriedQ, recentQ]);
  } else {
    let creditRows: AppCreditRow[];
    [rows, carried, recent, creditRows] = await db.batch([holderRows, carriedQ, recentQ, appCreditQuery(db, projectId, kind, ids)]);
    appCredit = appCreditFrom(ids, creditRows);
  }
  const histories = historiesFrom(ids, carried, recent);
  const out = new Map<number, HolderSnapshot>();
  for (const row of rows) {
    out.set(row.id, {
      ...holderFromRow(kind, row),
      ...(appCredit ? { apps: appCredit.get(row.id) ?? [] } : {}),
      history: { from_day: fromDay, buckets: histories.get(row.id) ?? [] },
    });
  }
  return out;
}
