/**
 * The daily reconciliation: for yesterday (UTC) and the two days before it, per account
 * manager, compare the credit the projects of this deployment granted to linked hosts with the
 * credit their clients estimated over the window ending that day (src/credit/reconcile.ts),
 * and write each day row's factor, the window's sums and the confirmed credit.
 */
import { type SQL, and, between, eq, isNotNull, sql } from "drizzle-orm";
import { projectUrlKey } from "../credit/project-url";
import { type EstimatedDay, type GrantedDay, linkKey, reconcileDay, reconcileWindow } from "../credit/reconcile";
import { runBatch } from "../db/batch";
import type { Db } from "../db/client";
import { type AmSubject, accountManagers, amDaily, amHostLinks, projects } from "../db/schema";
import { chunks, jsonList, withJsonRows, name, ref } from "../db/sql-helpers";
import { DEFAULT_BINDING, inEachProjectDatabase, projectDatabase } from "../db/project-db";
import { historyDatabases } from "../db/history-databases";
import { hostCreditByDay } from "../db/history-reads";

const d = amDaily;

/** How many days before yesterday each run reconciles again. */
const RECONCILE_CATCH_UP_DAYS = 2;

/** Factors of one subject's rows of `day`: rows are {entityId, url, factor, granted, estimated}. */
function factorWrites(amId: number, day: number, subject: AmSubject, rows: readonly object[]): SQL[] {
  const g = (f: string) => ref("g", f);
  return chunks(rows).map(
    (chunk) => sql`${withJsonRows("g", ["entityId", "url", "factor", "granted", "estimated"], chunk)}
      UPDATE ${d} SET ${name(d.factor)} = ${g("factor")}, ${name(d.windowGranted)} = ${g("granted")},
        ${name(d.windowEstimated)} = ${g("estimated")}, ${name(d.confirmedEc)} = ${name(d.ec)} * ${g("factor")}
      FROM g
      WHERE ${d}.${name(d.amId)} = ${amId} AND ${d}.${name(d.subject)} = ${subject} AND ${d}.${name(d.day)} = ${day}
        AND ${d}.${name(d.entityId)} = ${g("entityId")} AND ${d}.${name(d.url)} = ${g("url")}`,
  );
}

/** An aggregate row's confirmed credit: the sum of its parts' (null if none is reconciled). */
function confirmedSum(amId: number, day: number, subject: AmSubject, partSubject: AmSubject, match: SQL): SQL {
  return sql`UPDATE ${d} SET ${name(d.confirmedEc)} = (SELECT sum(part.${name(d.confirmedEc)}) FROM ${d} AS part
      WHERE part.${name(d.amId)} = ${amId} AND part.${name(d.subject)} = ${partSubject} AND part.${name(d.day)} = ${day}
        AND part.${name(d.confirmedEc)} IS NOT NULL AND ${match})
    WHERE ${d}.${name(d.amId)} = ${amId} AND ${d}.${name(d.subject)} = ${subject} AND ${d}.${name(d.day)} = ${day}`;
}

/** The projects reconciliation can match to the clients' URLs: each one's URL key and database. */
export type LinkedProjects = ReadonlyMap<number, { readonly urlKey: string; readonly db: Db; readonly history: readonly Db[] }>;

type HostLink = typeof amHostLinks.$inferSelect;

/**
 * The credit each linked host was granted on days first … last, read in the database its
 * project lives in (the links are in the registry, the history with the project's rows).
 */
async function grantedToLinkedHosts(
  links: readonly HostLink[],
  linkedProjects: LinkedProjects,
  first: number,
  last: number,
): Promise<GrantedDay[]> {
  const hostsOfProject = new Map<number, number[]>();
  for (const l of links) {
    const ids = hostsOfProject.get(l.projectId) ?? [];
    ids.push(l.hostId);
    hostsOfProject.set(l.projectId, ids);
  }
  const amHostOf = new Map(links.map((l) => [`${l.projectId}/${l.hostId}`, l.amHostId]));
  const perProject = await Promise.all(
    [...hostsOfProject].map(async ([projectId, hostIds]) => {
      const project = linkedProjects.get(projectId)!;
      return (await hostCreditByDay(project.db, project.history, projectId, hostIds, first, last)).map((g) => ({ ...g, projectId }));
    }),
  );
  return perProject.flat().map((g) => ({
    hostId: amHostOf.get(`${g.projectId}/${g.hostId}`)!,
    url: linkedProjects.get(g.projectId)!.urlKey,
    day: g.day,
    credit: g.credit,
  }));
}

/** One account manager's day; `registry` holds its rows and its host links. */
async function reconcileAccountManager(
  registry: Db,
  amId: number,
  day: number,
  linkedProjects: LinkedProjects,
): Promise<{ hosts: number; users: number }> {
  const { first, last } = reconcileWindow(day);
  const links = (await registry.select().from(amHostLinks).where(eq(amHostLinks.amId, amId))).filter((l) =>
    linkedProjects.has(l.projectId),
  );
  const linked = new Set(links.map((l) => linkKey(l.amHostId, linkedProjects.get(l.projectId)!.urlKey)));
  const amHostIds = [...new Set(links.map((l) => l.amHostId))];
  const [estimatedRows, granted] = await Promise.all([
    registry
      .select({ hostId: d.entityId, url: d.url, day: d.day, userId: d.userId, ec: d.ec })
      .from(d)
      .where(
        and(eq(d.amId, amId), eq(d.subject, "host_project"), between(d.day, first, last), sql`${d.entityId} IN ${jsonList(amHostIds)}`),
      ),
    grantedToLinkedHosts(links, linkedProjects, first, last),
  ]);
  const result = reconcileDay(day, estimatedRows as EstimatedDay[], granted, linked);
  const rows = <T extends { factor: number; granted: number; estimated: number; url: string }>(xs: T[], id: (x: T) => number) =>
    xs.map((x) => ({ entityId: id(x), url: x.url, factor: x.factor, granted: x.granted, estimated: x.estimated }));
  await runBatch(registry, [
    ...factorWrites(
      amId,
      day,
      "host_project",
      rows(result.hosts, (h) => h.hostId),
    ),
    ...factorWrites(
      amId,
      day,
      "user_project",
      rows(result.users, (u) => u.userId),
    ),
    confirmedSum(amId, day, "host", "host_project", sql`part.${name(d.entityId)} = ${d}.${name(d.entityId)}`),
    confirmedSum(amId, day, "user", "user_project", sql`part.${name(d.entityId)} = ${d}.${name(d.entityId)}`),
    confirmedSum(amId, day, "project", "user_project", sql`part.${name(d.url)} = ${d}.${name(d.url)}`),
    confirmedSum(amId, day, "total", "user_project", sql`true`),
  ]);
  return { hosts: result.hosts.length, users: result.users.length };
}

/**
 * What cron runs daily: the reconciliation of the days up to `day` (yesterday), every account
 * manager. The account managers, their rows and the host links are in the registry (the
 * default database); each project's granted credit is read in its own database.
 */
export async function reconcileAllAccountManagers(env: object, day: number): Promise<string> {
  const registry = projectDatabase(env, DEFAULT_BINDING);
  const [ams, projectRows] = await registry.batch([
    registry.select({ id: accountManagers.id }).from(accountManagers),
    registry
      .select({ id: projects.id, url: projects.url, database: projects.database, historyDatabases: projects.historyDatabases })
      .from(projects)
      .where(isNotNull(projects.url)),
  ]);
  // A database that does not answer (or was never migrated) is logged and its projects left
  // out; the reconciliation is idempotent and catches the days up once it answers again.
  const usable = new Set(
    (
      await inEachProjectDatabase(env, "reconcile-account-managers", async (db, binding) => {
        await db.select({ id: projects.id }).from(projects).limit(1);
        return binding;
      })
    ).values,
  );
  const linkedProjects = new Map<number, { urlKey: string; db: Db; history: Db[] }>();
  for (const p of projectRows) {
    const urlKey = projectUrlKey(p.url!);
    if (urlKey !== null && usable.has(p.database ?? DEFAULT_BINDING))
      linkedProjects.set(p.id, { urlKey, db: projectDatabase(env, p.database), history: historyDatabases(env, p.historyDatabases) });
  }
  let hosts = 0;
  // The days before yesterday again too: a day the cron missed is caught up (it is idempotent).
  for (const am of ams) {
    for (let d = day - RECONCILE_CATCH_UP_DAYS; d <= day; d++) {
      hosts += (await reconcileAccountManager(registry, am.id, d, linkedProjects)).hosts;
    }
  }
  return `reconciled ${hosts} (host, project) days of ${ams.length} account managers, days ${day - RECONCILE_CATCH_UP_DAYS} … ${day}`;
}
