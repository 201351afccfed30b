/**
 * The read half of a validator pass, its state (PassState): everything the engine needs, in ONE
 * D1 read batch.
 */
import { and, eq, sql } from "drizzle-orm";
import { havKey } from "../credit/host-app-version-key";
import type { PassApp, PassState, PassVersion, StoredResult } from "../credit/pass";
import type { HostAppVersionStats } from "../credit/pfc";
import { fairHostState, fairVersionState } from "./fair-rows";
import { BLOCK_IDS } from "./retention";
import {
  type HolderTable,
  appVersions,
  apps,
  hostAppVersions,
  hosts,
  projects,
  purgedWorkunitBlocks,
  purgedWorkunits,
  results,
  teams,
  users,
  workunits,
} from "./schema";
import type { HistoryTarget } from "./history-transitions";
import type { ExistingHolders } from "./grant-groups";
import { int64Text, jsonList } from "./sql-helpers";
import { startedClock } from "./stat-updates";
import { PFC_MODES, RESULT_OUTCOMES, decode, decodeNullable, validOutcome } from "./codes";

import type { Db } from "./client";

export type AppRow = typeof apps.$inferSelect;
export type AppVersionRow = typeof appVersions.$inferSelect;
export type HostAppVersionRow = typeof hostAppVersions.$inferSelect;

function passApp(row: AppRow): PassApp {
  return {
    id: row.id,
    name: row.name,
    minAvgPfc: row.minAvgPfc,
    hostScaleCheck: row.hostScaleCheck,
    targetNresults: row.targetNresults,
    creditMode: row.creditMode,
    maxGrantedCredit: row.maxGrantedCredit,
    creditPolicy: row.creditPolicy,
    fairLevel: row.fairLevel,
    fairSRef: row.fairSRef,
  };
}

function passVersion(row: AppVersionRow): PassVersion {
  return {
    appId: row.appId,
    pfc: { n: row.pfcN, avg: row.pfcAvg },
    pfcScale: row.pfcScale,
    planClass: row.planClass,
    fair: fairVersionState(row),
  };
}

function hostAppVersionStats(row: HostAppVersionRow): HostAppVersionStats {
  return {
    pfc: { n: row.pfcN, avg: row.pfcAvg },
    et: { n: row.etN, avg: row.etAvg, var: row.etVar, q: row.etQ },
    turnaround: { n: row.turnaroundN, avg: row.turnaroundAvg, var: row.turnaroundVar, q: row.turnaroundQ },
    consecutiveValid: row.consecutiveValid,
  };
}

export interface PassKeys {
  /** [host_id, app_version_id] of every result: the host_app_versions the engine reads. */
  readonly hostVersions: readonly (readonly [number, number])[];
  readonly workunitIds: readonly number[];
  readonly resultIds: readonly number[];
  /** The hosts, users and teams the results name: which exist decides insert or update (pass-writes.ts). */
  readonly holders: { readonly hosts: readonly number[]; readonly users: readonly number[]; readonly teams: readonly number[] };
}

export interface LoadedPassState extends PassState {
  /** The app each already credited workunit was credited under. */
  readonly workunitApps: ReadonlyMap<number, number>;
  /** The project's retention horizon and window (a result sent before the horizon may have been purged). */
  readonly retention: { readonly purgedBefore: number; readonly days: number };
  /** The project's clock: the time of its latest grant (expavg_time once its RAC counts credit; else 0). */
  readonly clock: number;
  /** The pass's workunit ids that retention purged (credited, then deleted with their window). */
  readonly purgedWorkunits: ReadonlySet<number>;
  readonly existingHolders: ExistingHolders;
  /**
   * Where the pass's finished buckets go: "queue" when the project keeps its history in
   * databases of its own (history_databases set), else "ledger" (history-transitions.ts).
   */
  readonly historyTarget: Exclude<HistoryTarget, "guarded">;
}

/**
 * The recorded runs that may hold the pass's workunit ids: for each id, the run starting at
 * or before it (one index seek each); whether the id lies in it is checked on return.
 */
function purgedRunsOf(db: Db, projectId: number, ids: readonly number[]) {
  const p = purgedWorkunits;
  return db
    .select({ firstId: p.firstId, lastId: p.lastId })
    .from(p)
    .where(
      and(
        eq(p.projectId, projectId),
        sql`${p.firstId} IN (SELECT (SELECT max(q.first_id) FROM purged_workunits AS q WHERE q.project_id = ${projectId} AND q.first_id <= j.value)
          FROM json_each(${JSON.stringify(ids)}) AS j)`,
      ),
    );
}

/**
 * The pass's workunit ids recorded in purged_workunit_blocks (retention.ts): each id's block
 * row, one index seek, and whether its offset is in it.
 */
function purgedInBlocksOf(db: Db, projectId: number, ids: readonly number[]) {
  const b = purgedWorkunitBlocks;
  return db
    .select({ id: sql<number>`j.value` })
    .from(b)
    .innerJoin(sql`json_each(${JSON.stringify(ids)}) AS j`, sql`${b.block} = j.value / ${BLOCK_IDS}`)
    .where(
      and(eq(b.projectId, projectId), sql`EXISTS (SELECT 1 FROM json_each(${b.offsets}) AS k WHERE k.value = j.value % ${BLOCK_IDS})`),
    );
}

export async function loadPassState(db: Db, projectId: number, keys: PassKeys): Promise<LoadedPassState> {
  const existing = (t: HolderTable, ids: readonly number[]) =>
    db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.projectId, projectId), sql`${t.id} IN ${jsonList(ids)}`));
  const [appRows, versionRows, havRows, wuRows, resultRows, projectRows, hostRows, userRows, teamRows, purgedRuns, purgedInBlocks] =
    await db.batch([
      db.select().from(apps).where(eq(apps.projectId, projectId)),
      db.select().from(appVersions).where(eq(appVersions.projectId, projectId)),
      db
        .select()
        .from(hostAppVersions)
        .where(
          and(
            eq(hostAppVersions.projectId, projectId),
            // Only the rows the results name (an anonymous-platform id may match a row of each app).
            sql`(${hostAppVersions.hostId}, ${hostAppVersions.appVersionId}) IN
            (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${JSON.stringify(keys.hostVersions)}))`,
          ),
        ),
      db
        .select({ id: workunits.id, credit: workunits.credit, appId: workunits.appId })
        .from(workunits)
        .where(and(eq(workunits.projectId, projectId), sql`${workunits.id} IN ${jsonList(keys.workunitIds)}`)),
      db
        .select({
          id: results.id,
          outcome: results.outcome,
          grantedCredit: results.grantedCredit,
          claimedCredit: results.claimedCredit,
          pfcMode: results.pfcMode,
          fingerprint: int64Text(results.fingerprint),
        })
        .from(results)
        .where(and(eq(results.projectId, projectId), sql`${results.id} IN ${jsonList(keys.resultIds)}`)),
      db
        .select({
          purgedBefore: projects.purgedBefore,
          days: projects.resultRetentionDays,
          clock: startedClock({ avg: sql`${projects.expavgCredit}`, time: sql`${projects.expavgTime}` }),
          historyElsewhere: sql<number>`${projects.historyDatabases} IS NOT NULL`,
        })
        .from(projects)
        .where(eq(projects.id, projectId)),
      existing(hosts, keys.holders.hosts),
      existing(users, keys.holders.users),
      existing(teams, keys.holders.teams),
      purgedRunsOf(db, projectId, keys.workunitIds),
      purgedInBlocksOf(db, projectId, keys.workunitIds),
    ]);
  const inBlocks = new Set(purgedInBlocks.map((r) => r.id));
  return {
    apps: new Map(appRows.map((r) => [r.name, passApp(r)])),
    versions: new Map(versionRows.map((r) => [r.id, passVersion(r)])),
    hostAppVersions: new Map(havRows.map((r) => [havKey(r), hostAppVersionStats(r)])),
    fairHostAppVersions: new Map(havRows.map((r) => [havKey(r), fairHostState(r)])),
    creditedWorkunits: new Map(wuRows.map((r) => [r.id, r.credit])),
    workunitApps: new Map(wuRows.map((r) => [r.id, r.appId])),
    retention: { purgedBefore: projectRows[0]?.purgedBefore ?? 0, days: projectRows[0]?.days ?? 0 },
    clock: projectRows[0]?.clock ?? 0,
    historyTarget: projectRows[0]?.historyElsewhere === 1 ? "queue" : "ledger",
    purgedWorkunits: new Set(
      keys.workunitIds.filter((id) => inBlocks.has(id) || purgedRuns.some((run) => run.firstId <= id && id <= run.lastId)),
    ),
    existingHolders: {
      hosts: new Set(hostRows.map((r) => r.id)),
      users: new Set(userRows.map((r) => r.id)),
      teams: new Set(teamRows.map((r) => r.id)),
    },
    finalResults: new Map(
      resultRows.map((r): [number, StoredResult] => [
        r.id,
        {
          fingerprint: r.fingerprint,
          // An error outcome stored under this id: any pass re-using it conflicts.
          validateState: validOutcome(decode(RESULT_OUTCOMES, r.outcome)) ? "valid" : "invalid",
          grantedCredit: r.grantedCredit,
          claimedCredit: r.claimedCredit,
          pfcMode: decodeNullable(PFC_MODES, r.pfcMode),
        },
      ]),
    ),
  };
}
