/**
 * The write half of a validator pass: the engine's effects as SQL statements that apply
 * themselves to the rows' current values. The caller runs them as ONE D1 batch (atomic): the
 * results insert fails on a result id that another pass already decided, and the workunits
 * insert on a workunit another pass already credited, and then nothing is written.
 */
import { type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { AV_AVERAGE, type AverageParams } from "../credit/constants";
import type { Attribution, Grant, PassEffects } from "../credit/pass";
import { appCreditQueueWrites } from "./app-credit-queue";
import { type HistoryTarget, historyTransitionWrites } from "./history-transitions";
import { type CreditColumn, HOLDER_CREDIT_COLUMNS, creditAssignments } from "./credit-columns";
import { dayOf } from "../credit/history";
import { type HolderKind, type HolderTable, appVersions, hosts, results, teams, users, workunits } from "./schema";
import type { GrantGroups, GrantPart } from "./grant-groups";
import { attributionCountWrites } from "./holder-counts";
import { dirtySubjects, projectCreditWrite } from "./read-model-writes";
import { markSubjects } from "./kv-marks";
import { type PhasedWrites, assembleWrites } from "./write-phases";
import { fairVersionAssignments, fairVersionStateWrites } from "./fair-rows";
import type { FairVersionState } from "../credit/fair-state";
import { hostAppVersionWrites } from "./host-app-version-writes";
import { chunks, col, conflictRowField, insertFromJson, jsonInt64, name, ref, wholeSeconds, withJsonRows, zeroedRow } from "./sql-helpers";
import { FAIR_RULE_CODES, PFC_MODES, RESULT_OUTCOMES, type ResultOutcomeName, encode, encodeNullable } from "./codes";
import type { PfcMode } from "../credit/pfc";
import type { FairRule } from "../credit/fair-claim";
import { type Assignment, averageUpdate, grantRun, recentAverageRun, setClause } from "./stat-updates";

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
  return assembleWrites(passWritePhases(projectId, now, effects, existing, history));
}

/** A pass's writes by phase. */
export function passWritePhases(
  projectId: number,
  now: number,
  effects: PassEffects,
  existing?: ExistingHolders,
  history?: HistoryTarget,
): PhasedWrites {
  const groups = grantGroups(effects.grants);
  const fresh = existing ? freshHolders(effects, groups, existing) : undefined;
  return {
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
    ...grantPhases(projectId, now, groups, fresh, history),
    projectCredit: projectCreditWrite(projectId, now, effects.grants),
    versions: versionWrites(projectId, now, effects),
    kvMarks: markSubjects(projectId, dirtySubjects(effects.attributions)),
  };
}

/** Who the pass names: each host's owner and each user's team (the latest result's), and the teams. */
function attributed(effects: Pick<PassEffects, "attributions">) {
  const a = effects.attributions;
  // A Map keeps the last value set for a key: the latest result names the owner and team.
  return {
    owners: new Map(a.map((x) => [x.hostId, x.userId] as const)),
    teamsOfUsers: new Map(a.filter((x) => x.userId !== 0).map((x) => [x.userId, x.teamId] as const)),
    teamIds: new Set(a.filter((x) => x.userId !== 0 && x.teamId !== 0).map((x) => x.teamId)),
  };
}

/** The ids of the pass's hosts, users and teams that exist (read with the pass's snapshot). */
export interface ExistingHolders {
  readonly hosts: ReadonlySet<number>;
  readonly users: ReadonlySet<number>;
  readonly teams: ReadonlySet<number>;
}

/**
 * Holders the pass both creates and credits, with the column that attributes them (a host's
 * owner, a user's team): each is inserted with its grants applied, one row written instead
 * of an insert and an update.
 */
export interface FreshHolders {
  readonly hosts: ReadonlyMap<number, number>;
  readonly users: ReadonlyMap<number, number>;
  readonly teams: ReadonlyMap<number, null>;
}

export function freshHolders(effects: Pick<PassEffects, "attributions">, groups: GrantGroups, existing: ExistingHolders): FreshHolders {
  const { owners, teamsOfUsers, teamIds } = attributed(effects);
  const fresh = <V>(named: Iterable<readonly [number, V]>, credited: ReadonlyMap<string, unknown>, known: ReadonlySet<number>) =>
    new Map([...named].filter(([id]) => credited.has(`${id}`) && !known.has(id)));
  return {
    hosts: fresh(owners, groups.hosts, existing.hosts),
    users: fresh(teamsOfUsers, groups.users, existing.users),
    teams: fresh(
      [...teamIds].map((id) => [id, null] as const),
      groups.teams,
      existing.teams,
    ),
  };
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

/** Grants grouped by row (a key string), keeping pass order inside each group. */
function groupGrants(grants: readonly Grant[], keyOf: (g: Grant) => string | null): Map<string, GrantPart[]> {
  const groups = new Map<string, GrantPart[]>();
  for (const g of grants) {
    const key = keyOf(g);
    if (key === null) continue;
    const part = { credit: g.credit, start: g.startTime, job: (g.perApp ?? "job") === "job" };
    const list = groups.get(key);
    if (list) list.push(part);
    else groups.set(key, [part]);
  }
  return groups;
}

/**
 * Applies each row's run of grants (grant_credit, docs/spec/credit.md#grant_credit) to a
 * holder's row: each of `columns` (credit-columns.ts) takes its step, the total adding the
 * run's credit, the RAC updated by the run, the day's credit. `groups` are keyed by holder id.
 */
export function creditRunWrites(
  table: HolderTable,
  projectId: number,
  now: number,
  groups: ReadonlyMap<string, readonly GrantPart[]>,
  fresh?: FreshRows,
  columns: readonly CreditColumn[] = HOLDER_CREDIT_COLUMNS,
): SQL[] {
  const rows = [...groups].map(([key, parts]) => {
    const run = grantRun(now, parts);
    return {
      k: Number(key),
      ...(fresh?.rows.has(key) ? { fresh: fresh.rows.get(key) } : {}),
      credit: run.first.credit,
      start: run.first.start,
      rest: run.restCredit,
      // The run's credit summed in pass order: what the day's history bucket adds.
      sum: parts.reduce((s, p) => s + p.credit, 0),
    };
  });
  const g = (f: string) => ref("g", f);
  /** The run's assignments to its row, `g(field)` reading the run's fields. */
  const assignments = (g: (f: string) => SQL): Assignment[] =>
    creditAssignments(columns, (f) => {
      if (f === "now") return sql`${now}`;
      if (f === "day") return sql`${dayOf(now)}`;
      if (f === "add") throw new Error("a holder's run has no summed total");
      return g(f);
    });
  const set = assignments(g);
  const fields = ["k", "credit", "start", "rest", "sum"];
  const updates = chunks(rows.filter((r) => !("fresh" in r))).map(
    (chunk) => sql`${withJsonRows("g", fields, chunk)} UPDATE ${table} SET ${setClause(set)} FROM g
      WHERE ${name(table.projectId)} = ${projectId} AND ${name(table.id)} = ${g("k")}`,
  );
  if (!fresh) return updates;
  // The same assignments on the row as attributionWrites would have created it (RAC clock at
  // `now`). If a concurrent pass created the row since this pass's read, the run is applied to
  // that row as the update above would (its fields found by its key) and the attribution is
  // this pass's, as attributionWrites sets it: a holder two passes create is no conflict.
  const ofExcluded = conflictRowField("g", [["k", table.id]]);
  const onConflict: Assignment[] = [
    ...assignments(ofExcluded),
    ...(fresh.attribution ? [[fresh.attribution.name, sql`excluded.${name(fresh.attribution)}`] as const] : []),
  ];
  const startsAtNow = Object.fromEntries(columns.filter((c) => c.startsAtNow).map((c) => [c.name, now]));
  const inserts = chunks(rows.filter((r) => "fresh" in r)).map(
    (chunk) => sql`${withJsonRows("g", [...fields, "fresh"], chunk)}
      INSERT INTO ${table} (${name(table.projectId)}, ${name(table.id)}, ${name(table.createTime)}, ${
        fresh.attribution ? sql`${name(fresh.attribution)}, ` : sql``
      }${sql.join(
        set.map(([c]) => col(c)),
        sql`, `,
      )})
      SELECT ${projectId}, ${g("k")}, ${now}, ${fresh.attribution ? sql`${g("fresh")}, ` : sql``}${sql.join(
        set.map(([, v]) => v),
        sql`, `,
      )} FROM g, ${zeroedRow(
        table,
        set.map(([c]) => c),
        startsAtNow,
      )} WHERE true ON CONFLICT DO UPDATE SET ${setClause(onConflict)}`,
  );
  return [...inserts, ...updates];
}

/** Rows creditRunWrites inserts instead of updating: key → the attribution column's value. */
export interface FreshRows {
  readonly rows: ReadonlyMap<string, number | null>;
  readonly attribution?: AnySQLiteColumn;
}

export function grantGroups(grants: readonly Grant[]): GrantGroups {
  return {
    hosts: groupGrants(grants, (g) => `${g.hostId}`),
    users: groupGrants(grants, (g) => (g.userId !== 0 ? `${g.userId}` : null)),
    // A host without an owner credits only itself (BOINC's zombie hosts, docs/spec/edge-cases.md#e18).
    teams: groupGrants(grants, (g) => (g.userId !== 0 && g.teamId !== 0 ? `${g.teamId}` : null)),
    userApps: groupGrants(grants, (g) => (g.userId !== 0 && g.perApp !== "none" ? `${g.userId}/${g.appId}` : null)),
    // BOINC keeps per-app credit for team 0 ("no team") too (docs/spec/credit.md#grant_credit_by_app).
    teamApps: groupGrants(grants, (g) => (g.userId !== 0 && g.perApp !== "none" ? `${g.teamId}/${g.appId}` : null)),
  };
}

/** grantPhases as one list, in the order of WRITE_PHASES. */
export function grantWrites(projectId: number, now: number, groups: GrantGroups, fresh?: FreshHolders, history?: HistoryTarget): SQL[] {
  return assembleWrites(grantPhases(projectId, now, groups, fresh, history));
}

/**
 * The grants' writes on the holders: the history buckets the grants finish (history-transitions.ts,
 * from the rows as they are before this pass), each holder's run (which also starts its new
 * day), and the pass's per-app credit as one queue row for the hourly fold.
 */
export function grantPhases(
  projectId: number,
  now: number,
  groups: GrantGroups,
  fresh?: FreshHolders,
  history?: HistoryTarget,
): Pick<PhasedWrites, "finishedDays" | "holderCredit" | "appCreditQueue"> {
  return {
    finishedDays: historyTransitionWrites(projectId, now, groups, history),
    holderCredit: holderCreditWrites(projectId, now, groups, fresh),
    appCreditQueue: appCreditQueueWrites(projectId, [{ now, groups }]),
  };
}

/** One pass's grant run on each host, user and team. */
function holderCreditWrites(projectId: number, now: number, groups: GrantGroups, fresh?: FreshHolders): SQL[] {
  const rowsOf = <V>(m: ReadonlyMap<number, V>) => new Map([...m].map(([id, v]) => [`${id}`, v as number | null]));
  return [
    ...creditRunWrites(hosts, projectId, now, groups.hosts, fresh && { rows: rowsOf(fresh.hosts), attribution: hosts.userId }),
    ...creditRunWrites(users, projectId, now, groups.users, fresh && { rows: rowsOf(fresh.users), attribution: users.teamId }),
    ...creditRunWrites(teams, projectId, now, groups.teams, fresh && { rows: rowsOf(fresh.teams) }),
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
    const av = appVersions;
    const run = grantRun(
      now,
      samples.map((c) => ({ credit: c.credit, start: c.time })),
    );
    const rac = recentAverageRun.sql(
      { avg: name(av.expavgCredit), time: name(av.expavgTime) },
      { now: sql`${now}`, credit: sql`${run.first.credit}`, start: sql`${run.first.start}`, rest: sql`${run.restCredit}` },
    );
    return [sql`${name(av.expavgCredit)} = ${rac.avg}`, sql`${name(av.expavgTime)} = ${rac.time}`];
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
