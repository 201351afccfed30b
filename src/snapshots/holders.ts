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

/** The history of subjects from `fromDay` on (and each one's last bucket before it). */
export async function loadHistories(
  db: Db,
  projectId: number,
  subject: CreditSubject,
  ids: readonly number[],
  fromDay: number,
): Promise<Map<number, DayBucket[]>> {
  const h = creditHistory;
  const of = and(eq(h.projectId, projectId), eq(h.subject, subject), among(h.entityId, ids));
  const lastBefore = db
    .select({ entityId: h.entityId, day: max(h.day).as("last_day") })
    .from(h)
    .where(and(of, lt(h.day, fromDay)))
    .groupBy(h.entityId)
    .as("last_before");
  const bucket = { entityId: h.entityId, day: h.day, credit: h.credit, expavgCredit: h.expavgCredit, expavgTime: h.expavgTime };
  const [carried, recent] = await db.batch([
    db
      .select(bucket)
      .from(h)
      .innerJoin(lastBefore, and(eq(h.entityId, lastBefore.entityId), eq(h.day, lastBefore.day)))
      .where(of),
    db.select(bucket).from(h).where(and(of, gte(h.day, fromDay))).orderBy(asc(h.entityId), asc(h.day)),
  ]);
  const out = new Map<number, DayBucket[]>(ids.map((id) => [id, []]));
  for (const { entityId, ...b } of [...carried, ...recent]) out.get(entityId)?.push(b);
  return out;
}

async function loadAppCredit(db: Db, projectId: number, kind: "users" | "teams", ids: readonly number[]) {
  const t = kind === "users" ? creditUsers : creditTeams;
  const owner = kind === "users" ? creditUsers.userId : creditTeams.teamId;
  const rows = await db
    .select({ owner, app: apps.name, total: t.total, expavg: t.expavg, expavgTime: t.expavgTime, njobs: t.njobs })
    .from(t)
    .innerJoin(apps, and(eq(apps.projectId, t.projectId), eq(apps.id, t.appId)))
    .where(and(eq(t.projectId, projectId), among(owner, ids)))
    .orderBy(asc(apps.id));
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
  const [rows, histories, appCredit] = await Promise.all([
    db
      .select()
      .from(table)
      .where(and(eq(table.projectId, projectId), among(table.id, ids))),
    loadHistories(db, projectId, SUBJECT_OF_KIND[kind], ids, fromDay),
    kind === "hosts" ? Promise.resolve(null) : loadAppCredit(db, projectId, kind, ids),
  ]);
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
