/**
 * The write half of a validator pass: the engine's effects as SQL statements that apply
 * themselves to the rows' current values. The caller runs them as ONE D1 batch (atomic): the
 * results insert fails on a result id that another pass already decided, and the workunits
 * insert on a workunit another pass already credited, and then nothing is written.
 */
import { type SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { AV_AVERAGE, type AverageParams } from "../credit/constants";
import type { Attribution, PassEffects } from "../credit/pass";
import type { HistoryTarget } from "./history-transitions";
import { type HolderKind, type HolderTable, appVersions, hosts, results, teams, users, workunits } from "./schema";
import { type ExistingHolders, freshHolders, grantGroups } from "./grant-groups";
import { grantPhases } from "./grant-writes";
import { attributionCountWrites } from "./holder-counts";
import { dirtySubjects, markSubjects } from "./kv-marks";
import { assembleWrites } from "./write-phases";
import { fairVersionAssignments, fairVersionStateWrites } from "./fair-rows";
import type { FairVersionState } from "../credit/fair-state";
import { hostAppVersionWrites } from "./host-app-version-writes";
import { chunks, col, insertFromJson, jsonInt64, name, wholeSeconds } from "./sql-helpers";
import { FAIR_RULE_CODES, PFC_MODES, RESULT_OUTCOMES, type ResultOutcomeName, encode, encodeNullable } from "./codes";
import type { PfcMode } from "../credit/pfc";
import type { FairRule } from "../credit/fair-claim";
import { averageUpdate, setClause } from "./stat-updates";
import { APP_VERSION_CREDIT_COLUMNS, boundRunFields, creditAssignments } from "./credit-columns";

/** A result's final outcome as stored; absent fields are NULL. */
export interface OutcomeRow {
  readonly id: number;
  readonly appId: number;
  readonly hostId: number;
  /** The verdict of a validated result, or the error outcome ("valid_unclaimed" is told by the missing policy credits). */
  readonly outcome: Exclude<ResultOutcomeName, "valid_unclaimed">;
  readonly grantedCredit: number;
  readonly claimedCredit?: number | null;
  readonly pfcMode?: PfcMode | null;
  readonly boincCredit?: number | null;
  readonly fairCredit?: number | null;
  readonly fairRule?: FairRule | null;
  /** http/fingerprint.ts's decimal text. */
  readonly fingerprint: string;
  /** When it was decided, if not at the `now` given for all (a pass batch's rows). */
  readonly decidedAt?: number;
}

/** Inserts final outcomes; a result id already decided makes the whole batch fail. */
export function outcomeInserts(projectId: number, now: number, rows: readonly OutcomeRow[]): SQL[] {
  const stored = rows.map((r) => ({
    id: r.id,
    appId: r.appId,
    hostId: r.hostId,
    outcome: encode(RESULT_OUTCOMES, r.outcome === "valid" && (r.boincCredit ?? null) === null ? "valid_unclaimed" : r.outcome),
    grantedCredit: r.grantedCredit,
    claimedCredit: r.claimedCredit ?? null,
    pfcMode: encodeNullable(PFC_MODES, r.pfcMode),
    // Each policy's credit is stored only where it differs from the one before it: the
    // granted credit is BOINC's under the boinc policy, and most apps' two policies pay alike.
    boincCredit: r.boincCredit === r.grantedCredit ? null : (r.boincCredit ?? null),
    fairCredit: r.fairCredit === r.boincCredit ? null : (r.fairCredit ?? null),
    fairRule: encodeNullable(FAIR_RULE_CODES, r.fairRule),
    fingerprint: r.fingerprint,
    decidedAt: wholeSeconds(r.decidedAt ?? now),
  }));
  return chunks(stored).map((chunk) =>
    insertFromJson(
      sql`${results}`,
      [
        [results.projectId, sql`${projectId}`],
        [results.id, "id"],
        [results.appId, "appId"],
        [results.hostId, "hostId"],
        [results.outcome, "outcome"],
        [results.grantedCredit, "grantedCredit"],
        [results.claimedCredit, "claimedCredit"],
        [results.pfcMode, "pfcMode"],
        [results.boincCredit, "boincCredit"],
        [results.fairCredit, "fairCredit"],
        [results.fairRule, "fairRule"],
        [results.fingerprint, jsonInt64("fingerprint")],
        [results.decidedAt, "decidedAt"],
      ],
      chunk,
    ),
  );
}

/** The credited workunits, each with the time it was credited at (whole seconds). */
export function workunitInserts(projectId: number, rows: readonly { id: number; appId: number; credit: number; at: number }[]): SQL[] {
  return chunks(rows).map((chunk) =>
    insertFromJson(
      sql`${workunits}`,
      [
        [workunits.projectId, sql`${projectId}`],
        [workunits.id, "id"],
        [workunits.appId, "appId"],
        [workunits.credit, "credit"],
        [workunits.creditedAt, "at"],
      ],
      chunk,
    ),
  );
}

/** A pass's writes, as one batch in the order of WRITE_PHASES (write-phases.ts). */
export function passWrites(
  projectId: number,
  now: number,
  effects: PassEffects,
  existing?: ExistingHolders,
  history?: HistoryTarget,
): SQL[] {
  const groups = grantGroups(effects.grants);
  const fresh = existing ? freshHolders(effects, groups, existing) : undefined;
  return assembleWrites({
    holderCounts: attributionCountWrites(projectId, effects.attributions),
    outcomes: outcomeInserts(
      projectId,
      now,
      effects.results.map((r) => ({ ...r, outcome: r.validateState })),
    ),
    workunits: workunitInserts(
      projectId,
      effects.workunits.map((w) => ({ ...w, at: wholeSeconds(now) })),
    ),
    // A fresh holder with a grant is created by its grant's statement (holderCredit).
    holders: attributionWrites(projectId, [{ now, attributions: effects.attributions }], (kind, id) => !fresh?.[kind].has(id)),
    hostAppVersions: hostAppVersionWrites(
      projectId,
      effects.hostAppVersionsSeen,
      effects.hostAppVersionChanges,
      effects.fairHostAppVersions,
    ),
    ...grantPhases(projectId, now, effects.grants, groups, fresh, history),
    versions: versionWrites(projectId, now, effects),
    kvMarks: markSubjects(projectId, dirtySubjects(effects.attributions)),
  });
}

/**
 * Creates the hosts, users and teams that `include` picks and that are not stored yet, each
 * with its RAC clock at the `now` of the first pass naming it (docs/spec/credit.md#first-seen),
 * and records each host's owner and each user's team as the last pass names them
 * (docs/spec/credit.md#attribution); an owner that changes and changes back within the passes
 * is not written at all. One pass, or the passes of a batch in order.
 */
export function attributionWrites(
  projectId: number,
  passes: readonly { now: number; attributions: readonly Attribution[] }[],
  include: (kind: HolderKind, id: number) => boolean = () => true,
): SQL[] {
  const hostRows = new Map<number, { id: number; now: number; owner: number }>();
  const userRows = new Map<number, { id: number; now: number; team: number }>();
  const teamRows = new Map<number, { id: number; now: number }>();
  for (const { now, attributions } of passes) {
    for (const x of attributions) {
      if (include("hosts", x.hostId)) hostRows.set(x.hostId, { id: x.hostId, now: hostRows.get(x.hostId)?.now ?? now, owner: x.userId });
      if (x.userId === 0) continue;
      if (include("users", x.userId)) userRows.set(x.userId, { id: x.userId, now: userRows.get(x.userId)?.now ?? now, team: x.teamId });
      if (x.teamId !== 0 && include("teams", x.teamId) && !teamRows.has(x.teamId)) teamRows.set(x.teamId, { id: x.teamId, now });
    }
  }
  const created = (table: HolderTable) =>
    [
      [table.projectId, sql`${projectId}`],
      [table.id, "id"],
      [table.createTime, "now"],
      [table.expavgTime, "now"],
    ] as const;
  const changed = (column: typeof hosts.userId | typeof users.teamId) =>
    sql`ON CONFLICT DO UPDATE SET ${name(column)} = excluded.${name(column)} WHERE ${name(column)} IS NOT excluded.${name(column)}`;
  return [
    ...chunks([...hostRows.values()]).map((rows) =>
      insertFromJson(sql`${hosts}`, [...created(hosts), [hosts.userId, "owner"]], rows, changed(hosts.userId)),
    ),
    ...chunks([...userRows.values()]).map((rows) =>
      insertFromJson(sql`${users}`, [...created(users), [users.teamId, "team"]], rows, changed(users.teamId)),
    ),
    ...chunks([...teamRows.values()]).map((rows) => insertFromJson(sql`${teams}`, created(teams), rows, sql`ON CONFLICT DO NOTHING`)),
  ];
}

/**
 * AVERAGE over a whole run of samples in one statement: a recursive walk from the row's
 * current values through the samples in order, then the last step written back.
 */
export function averageWalk(
  table: SQLiteTable,
  stats: { n: string; avg: string },
  where: SQL,
  samples: readonly number[],
  params: AverageParams,
): SQL {
  const walk = averageWalkParts(table, stats, where, samples, params);
  return sql`WITH RECURSIVE ${walk.ctes} UPDATE ${table} SET ${walk.assignment} WHERE ${where}`;
}

/** averageWalk's CTEs (`sample`, `walk`) and its SET assignment, to join other assignments of the same row. */
function averageWalkParts(
  table: SQLiteTable,
  stats: { n: string; avg: string },
  where: SQL,
  samples: readonly number[],
  params: AverageParams,
): { ctes: SQL; assignment: SQL } {
  const step = averageUpdate.sql({ n: sql.raw("walk.n"), avg: sql.raw("walk.avg") }, sql.raw("sample.x"), params);
  return {
    // MATERIALIZED: SQLite then indexes the samples by i (an automatic index, built once), so each
    // step finds its sample by equality; over json_each itself every step would scan every sample.
    ctes: sql`sample(i, x) AS MATERIALIZED (SELECT CAST(j.key AS INTEGER), j.value FROM json_each(${JSON.stringify(samples)}) AS j),
      walk(i, n, avg) AS (
        SELECT 0, ${col(stats.n)}, ${col(stats.avg)} FROM ${table} WHERE ${where}
        UNION ALL
        SELECT walk.i + 1, ${step.n}, ${step.avg} FROM walk JOIN sample ON sample.i = walk.i
      )`,
    assignment: sql`(${col(stats.n)}, ${col(stats.avg)}) = (SELECT n, avg FROM walk ORDER BY i DESC LIMIT 1)`,
  };
}

const versionById = (projectId: number, id: number) =>
  sql`${name(appVersions.projectId)} = ${projectId} AND ${name(appVersions.id)} = ${id}`;

/**
 * End of the pass (docs/spec/credit.md#end-of-the-pass): per app version, all PFC samples first, then the credit,
 * and the fair state the pass left. The three touch different columns, so each version's row is
 * written by one statement.
 */
function versionWrites(projectId: number, now: number, effects: PassEffects): SQL[] {
  const ids = [...new Set([...effects.versionPfcSamples.keys(), ...effects.versionCreditSamples.keys()])];
  const credit = (id: number): SQL[] => {
    const samples = effects.versionCreditSamples.get(id);
    if (!samples?.length) return [];
    const fields = boundRunFields(
      now,
      samples.map((c) => ({ credit: c.credit, start: c.time })),
    );
    return [setClause(creditAssignments(appVersions, APP_VERSION_CREDIT_COLUMNS, (f) => fields[f]))];
  };
  return versionStateWrites(projectId, ids, effects.versionPfcSamples, effects.fairVersions, credit);
}

/**
 * One statement per app version in `ids` (`more` adds its other assignments) with its PFC walk
 * over its samples in order and its final fair state; then the fair states of versions not in
 * `ids`, which no other statement writes.
 */
export function versionStateWrites(
  projectId: number,
  ids: readonly number[],
  pfcSamples: ReadonlyMap<number, readonly number[]>,
  fairVersions: ReadonlyMap<number, FairVersionState>,
  more: (id: number) => SQL[] = () => [],
): SQL[] {
  const av = appVersions;
  const written = ids.map((id) => {
    const byId = versionById(projectId, id);
    const pfc = pfcSamples.get(id);
    const fair = fairVersions.get(id);
    const walk = pfc?.length ? averageWalkParts(av, { n: av.pfcN.name, avg: av.pfcAvg.name }, byId, pfc, AV_AVERAGE) : null;
    const set: SQL[] = [...(walk ? [walk.assignment] : []), ...(fair ? [fairVersionAssignments(fair)] : []), ...more(id)];
    return sql`${walk ? sql`WITH RECURSIVE ${walk.ctes} ` : sql``}UPDATE ${av} SET ${sql.join(set, sql`, `)} WHERE ${byId}`;
  });
  const alone = new Map([...fairVersions].filter(([id]) => !ids.includes(id)));
  return [...written, ...fairVersionStateWrites(projectId, alone)];
}
