/**
 * A host's, user's or team's public snapshot, loaded from D1: what the KV key holds and what
 * a missing key falls back to. Many at once, for the cron.
 */
import { type AnyColumn, type SQL, and, asc, eq, gte, inArray, lt, max, sql } from "drizzle-orm";
import { type AppCreditRow as StoredAppCredit, applyAppCreditRun } from "../credit/app-credit-fold";
import { type DayBucket, withOpenDay } from "../credit/history";
import { firstDayOfMonth, monthOfDay } from "../credit/history-months";
import { pendingAppCreditQuery, queuedAppCreditRun } from "../db/app-credit-queue";
import type { Db } from "../db/client";
import { historyBindingFor, parseHistoryDatabases } from "../db/history-databases";
import { type QueuedBucketRow, queuedBucket, queuedBucketsQuery } from "../db/history-queue";
import { holderReadSources } from "../db/holder-reads";
import type { OpenDatabase } from "../db/project-db";
import {
  type CreditSubject,
  apps,
  creditHistory,
  creditHistoryMonthly,
  creditTeams,
  creditUsers,
  hosts,
  projects,
  teams,
  users,
  type usersNow,
} from "../db/schema";
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

/**
 * Days with grants from `from_day` (a month's first day) on, plus the last one before it (it
 * carries the RAC in); monthly buckets among them are dated at their month's first day.
 */
export interface StoredHistory {
  readonly from_day: number;
  readonly buckets: readonly DayBucket[];
  /** The project's history_monthly_before: buckets before it are read as months (absent in older snapshots: 0). */
  readonly monthly_before?: number;
}

/** Where a history read starts: the first day of `day`'s month, so that a month before the boundary is read whole. */
export function historyStart(day: number): number {
  return firstDayOfMonth(monthOfDay(day));
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

export const SUBJECT_OF_KIND: Record<HolderKind, CreditSubject> = { hosts: "host", users: "user", teams: "team" };

/**
 * The queries for the history of subjects from `fromDay` (a month's first day: historyStart)
 * on, and each one's last day and month before it, and the project's monthly boundary: to go
 * into the caller's batch so the history is read at the same moment as the totals beside it.
 * `projectId` may be a subquery.
 */
export function historyQueries(db: Db, projectId: number | SQL, subject: CreditSubject, ids: readonly number[], fromDay: number) {
  const h = creditHistory;
  const m = creditHistoryMonthly;
  const of = and(eq(h.projectId, projectId as number), eq(h.subject, subject), among(h.entityId, ids));
  const ofMonths = and(eq(m.projectId, projectId as number), eq(m.subject, subject), among(m.entityId, ids));
  const fromMonth = monthOfDay(fromDay);
  const lastBefore = db
    .select({ entityId: h.entityId, day: max(h.day).as("last_day") })
    .from(h)
    .where(and(of, lt(h.day, fromDay)))
    .groupBy(h.entityId)
    .as("last_before");
  const lastMonthBefore = db
    .select({ entityId: m.entityId, month: max(m.month).as("last_month") })
    .from(m)
    .where(and(ofMonths, lt(m.month, fromMonth)))
    .groupBy(m.entityId)
    .as("last_month_before");
  const bucket = { entityId: h.entityId, day: h.day, credit: h.credit, expavgCredit: h.expavgCredit, expavgTime: h.expavgTime };
  const monthBucket = { entityId: m.entityId, month: m.month, credit: m.credit, expavgCredit: m.expavgCredit, expavgTime: m.expavgTime };
  return [
    db
      .select(bucket)
      .from(h)
      .innerJoin(lastBefore, and(eq(h.entityId, lastBefore.entityId), eq(h.day, lastBefore.day)))
      .where(of),
    db
      .select(bucket)
      .from(h)
      .where(and(of, gte(h.day, fromDay)))
      .orderBy(asc(h.entityId), asc(h.day)),
    db
      .select(monthBucket)
      .from(m)
      .innerJoin(lastMonthBefore, and(eq(m.entityId, lastMonthBefore.entityId), eq(m.month, lastMonthBefore.month)))
      .where(ofMonths),
    db
      .select(monthBucket)
      .from(m)
      .where(and(ofMonths, gte(m.month, fromMonth))),
    db
      .select({ monthlyBefore: projects.historyMonthlyBefore, movedThrough: projects.historyMovedThrough })
      .from(projects)
      .where(eq(projects.id, projectId as number)),
  ] as const;
}

/** Where a project's history is kept besides its ledger (null: nowhere else), read in the loader's batch. */
function historyDatabasesQuery(db: Db, projectId: number | SQL) {
  return db
    .select({ list: projects.historyDatabases })
    .from(projects)
    .where(eq(projects.id, projectId as number));
}

export interface Histories {
  readonly buckets: Map<number, DayBucket[]>;
  readonly monthlyBefore: number;
  /** The last history_queue row this database holds the buckets of (a history database's mark; the ledger's is 0). */
  readonly movedThrough: number;
}

/**
 * The same histories read in the project's history databases (src/db/history-databases.ts),
 * merged with the ledger's and with the buckets still queued in the ledger (`queued`, read in
 * the ledger's batch): each database holds the buckets of its days and rolls its own months
 * up, so the buckets are joined by day and the monthly boundary is the latest one. A queued
 * bucket counts unless the database its day goes to already holds its queue row (that
 * database's mark, read with its buckets): the minute job may move it between the ledger's read
 * and the history database's, and it counts once either way.
 */
export async function withHistoryDatabases(
  ledger: Histories,
  list: string | null | undefined,
  open: OpenDatabase,
  projectId: number | SQL,
  subject: CreditSubject,
  ids: readonly number[],
  fromDay: number,
  queued: readonly QueuedBucketRow[],
): Promise<Histories> {
  if (list === null || list === undefined) return ledger;
  const targets = parseHistoryDatabases(list);
  const parts = await Promise.all(
    targets.map(async (h) => {
      const db = open(h.binding);
      return historiesFrom(ids, (await db.batch(historyQueries(db, projectId, subject, ids, fromDay))) as unknown as HistoryRows);
    }),
  );
  const markOf = new Map(targets.map((h, i) => [h.binding, parts[i]!.movedThrough]));
  const waiting = new Map<number, DayBucket[]>();
  for (const row of queued) {
    if (row.queueId <= markOf.get(historyBindingFor(targets, row.day))!) continue;
    waiting.set(row.entityId, [...(waiting.get(row.entityId) ?? []), queuedBucket(row)]);
  }
  const buckets = new Map<number, DayBucket[]>();
  for (const id of ids) {
    buckets.set(
      id,
      [ledger, ...parts]
        .flatMap((p) => p.buckets.get(id) ?? [])
        .concat(waiting.get(id) ?? [])
        .sort((a, b) => a.day - b.day),
    );
  }
  return { buckets, monthlyBefore: Math.max(ledger.monthlyBefore, ...parts.map((p) => p.monthlyBefore)), movedThrough: 0 };
}

type BucketRow = DayBucket & { entityId: number };
type MonthRow = Omit<DayBucket, "day"> & { entityId: number; month: number };
export type HistoryRows = readonly [BucketRow[], BucketRow[], MonthRow[], MonthRow[], { monthlyBefore: number; movedThrough: number }[]];

/** Each subject's buckets (ascending by day, months dated at their first day) from what `historyQueries` read. */
export function historiesFrom(ids: readonly number[], [carried, recent, carriedMonths, months, boundary]: HistoryRows): Histories {
  const out = new Map<number, DayBucket[]>(ids.map((id) => [id, []]));
  const asBucket = ({ month, ...b }: MonthRow): BucketRow => ({ ...b, day: firstDayOfMonth(month) });
  const all = [...carriedMonths.map(asBucket), ...carried, ...months.map(asBucket), ...recent].sort((a, b) => a.day - b.day);
  for (const { entityId, ...b } of all) out.get(entityId)?.push(b);
  return { buckets: out, monthlyBefore: boundary[0]?.monthlyBefore ?? 0, movedThrough: boundary[0]?.movedThrough ?? 0 };
}

function appCreditQuery(db: Db, projectId: number, kind: "users" | "teams", ids: readonly number[]) {
  const t = kind === "users" ? creditUsers : creditTeams;
  const owner = kind === "users" ? creditUsers.userId : creditTeams.teamId;
  return db
    .select({ owner, appId: t.appId, app: apps.name, total: t.total, expavg: t.expavg, expavgTime: t.expavgTime, njobs: t.njobs })
    .from(t)
    .innerJoin(apps, and(eq(apps.projectId, t.projectId), eq(apps.id, t.appId)))
    .where(and(eq(t.projectId, projectId), among(owner, ids)))
    .orderBy(asc(apps.id));
}

type AppCreditRow = Awaited<ReturnType<typeof appCreditQuery>>[number];

/**
 * The owners among these hosts' who opted out of stats export: their hosts' host_cpid is not
 * shown (SECURITY.md, "What a public read shows"), as BOINC's db_dump leaves such a user's hosts out.
 */
function optedOutOwnersQuery(db: Db, projectId: number, hostIds: readonly number[]) {
  const owners = db
    .select({ userId: hosts.userId })
    .from(hosts)
    .where(and(eq(hosts.projectId, projectId), among(hosts.id, hostIds)));
  return db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.projectId, projectId), inArray(users.id, owners), eq(users.statsExport, false)));
}

/**
 * The holder as its snapshot shows it: without the cpid of a user who opted out of stats
 * export, nor the host_cpid of such a user's host, so no public read links them across projects.
 */
function consentedFields(kind: HolderKind, row: HolderRow, optedOutOwners: ReadonlySet<number>) {
  const shown = holderFromRow(kind, row);
  if (kind === "users" && (row as typeof usersNow.$inferSelect).statsExport === false) return { ...shown, cpid: null };
  if (kind === "hosts" && optedOutOwners.has((row as typeof hosts.$inferSelect).userId)) return { ...shown, host_cpid: null };
  return shown;
}

type PendingAppCreditRow = Awaited<ReturnType<typeof pendingAppCreditQuery>>[number];

/**
 * Each owner's per-app credit by app id: the stored rows with the runs the hourly fold has not
 * applied yet applied in its order (app-credit-queue.ts), so a grant shows at once.
 */
function appCreditFrom(
  ids: readonly number[],
  rows: readonly AppCreditRow[],
  pending: readonly PendingAppCreditRow[],
): Map<number, AppCredit[]> {
  const byOwner = new Map<number, Map<number, { app: string; row: StoredAppCredit }>>(ids.map((id) => [id, new Map()]));
  for (const r of rows) byOwner.get(r.owner)?.set(r.appId, { app: r.app, row: r });
  for (const p of pending) {
    const { holderId, appId, run } = queuedAppCreditRun(p.rowNow, p.run);
    const apps = byOwner.get(holderId);
    // An app deleted since (its rows go with it) is left out, as the stored rows' join leaves it.
    if (p.app !== null) apps?.set(appId, { app: p.app, row: applyAppCreditRun(apps.get(appId)?.row, run) });
  }
  return new Map(
    [...byOwner].map(([owner, apps]) => [
      owner,
      [...apps]
        .sort(([a], [b]) => a - b)
        .map(([, { app, row: r }]) => ({ app, total_credit: r.total, expavg_credit: r.expavg, expavg_time: r.expavgTime, jobs: r.njobs })),
    ]),
  );
}

export type HolderRow = typeof hosts.$inferSelect | typeof usersNow.$inferSelect | typeof teams.$inferSelect;

/** A holder's own fields, with BOINC's names. */
export function holderFromRow(kind: HolderKind, row: HolderRow): Omit<HolderSnapshot, "history" | "apps"> {
  const r = row as typeof hosts.$inferSelect & typeof usersNow.$inferSelect;
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
  open: OpenDatabase,
): Promise<Map<number, HolderSnapshot>> {
  const table = holderReadSources[kind];
  // One D1 batch (one transaction): the total, the RAC, the history and the per-app credit
  // shown together all come from the same moment, never from either side of a pass.
  const holderRows = db
    .select()
    .from(table)
    .where(and(eq(table.projectId, projectId), among(table.id, ids)));
  const start = historyStart(fromDay);
  const history = historyQueries(db, projectId, SUBJECT_OF_KIND[kind], ids, start);
  const queuedQuery = queuedBucketsQuery(db, projectId, SUBJECT_OF_KIND[kind], ids);
  let rows: HolderRow[], elsewhere: { list: string | null }[], queued: QueuedBucketRow[], historyRows: HistoryRows;
  let appCredit: Map<number, AppCredit[]> | null = null;
  let optedOut: { id: number }[] = [];
  if (kind === "hosts") {
    [rows, optedOut, elsewhere, queued, ...historyRows] = await db.batch([
      holderRows,
      optedOutOwnersQuery(db, projectId, ids),
      historyDatabasesQuery(db, projectId),
      queuedQuery,
      ...history,
    ]);
  } else {
    let creditRows: AppCreditRow[], pendingCredit: PendingAppCreditRow[];
    [rows, creditRows, pendingCredit, elsewhere, queued, ...historyRows] = await db.batch([
      holderRows,
      appCreditQuery(db, projectId, kind, ids),
      pendingAppCreditQuery(db, projectId, kind, ids),
      historyDatabasesQuery(db, projectId),
      queuedQuery,
      ...history,
    ]);
    appCredit = appCreditFrom(ids, creditRows, pendingCredit);
  }
  const histories = await withHistoryDatabases(
    historiesFrom(ids, historyRows),
    elsewhere[0]?.list,
    open,
    projectId,
    SUBJECT_OF_KIND[kind],
    ids,
    start,
    queued,
  );
  const optedOutOwners = new Set(optedOut.map((u) => u.id));
  const out = new Map<number, HolderSnapshot>();
  for (const row of rows) {
    out.set(row.id, {
      ...consentedFields(kind, row, optedOutOwners),
      ...(appCredit ? { apps: appCredit.get(row.id) ?? [] } : {}),
      history: { from_day: start, buckets: withOpenDay(histories.buckets.get(row.id) ?? [], row), monthly_before: histories.monthlyBefore },
    });
  }
  return out;
}
