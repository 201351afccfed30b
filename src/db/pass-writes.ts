/**
 * The write half of a validator pass: the engine's effects as SQL statements that apply
 * themselves to the rows' current values. The caller runs them as ONE D1 batch (atomic): the
 * results insert fails on a result id that another pass already decided, and the workunits
 * insert on a workunit another pass already credited, and then nothing is written.
 */
import { type SQL, getTableColumns, sql } from "drizzle-orm";
import type { AnySQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { AV_AVERAGE, type AverageParams, HAV_AVERAGE } from "../credit/constants";
import { type HostAppVersionKey, havKey } from "../credit/host-app-version-key";
import type { Attribution, Grant, HostAppVersionChange, PassEffects } from "../credit/pass";
import { appCreditQueueWrites } from "./app-credit-queue";
import { dayCreditAssignment, historyTransitionWrites } from "./history-transitions";
import {
  appVersions,
  hostAppVersions,
  hosts,
  results,
  teams,
  users,
  workunits,
} from "./schema";
import type { GrantGroups, GrantPart } from "./grant-groups";
import { dirtySubjects, projectCreditWrite } from "./read-model-writes";
import { markSubjects } from "./kv-marks";
import { NEUTRAL_FIELDS, neutralAssignments, neutralFields } from "./neutral-rows";
import { FAIR_HOST_FIELDS, fairHostAssignments, fairHostFields, fairHostStateWrites, fairVersionStateWrites } from "./fair-rows";
import type { FairHostChange } from "../credit/fair-pass";
import { chunks, col, insertFromJson, jsonInt64, name, ref, wholeSeconds, withJsonRows } from "./sql-helpers";
import { FAIR_RULE_CODES, PFC_MODES, RESULT_OUTCOMES, type ResultOutcomeName, encode, encodeNullable } from "./codes";
import type { PfcMode } from "../credit/pfc";
import type { FairRule } from "../credit/fair-claim";
import {
  type Assignment,
  averageUpdate,
  averageVarUpdate,
  grantRun,
  recentAverageRun,
  setClause,
} from "./stat-updates";

const h = hostAppVersions;

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
}

/** Inserts final outcomes; a result id already decided makes the whole batch fail. */
export function outcomeInserts(projectId: number, rows: readonly (OutcomeRow & { readonly decidedAt: number })[]): SQL[] {
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
    boincCredit: r.boincCredit === r.grantedCredit ? null : r.boincCredit ?? null,
    fairCredit: r.fairCredit === r.boincCredit ? null : r.fairCredit ?? null,
    fairRule: encodeNullable(FAIR_RULE_CODES, r.fairRule),
    fingerprint: r.fingerprint,
    decidedAt: wholeSeconds(r.decidedAt),
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

export function passWrites(projectId: number, now: number, effects: PassEffects): SQL[] {
  return passBatchWrites(projectId, [{ now, effects }]);
}

/** One pass's effects and the `now` it was decided at. */
export interface TimedEffects {
  readonly now: number;
  readonly effects: PassEffects;
}

/**
 * The writes of passes decided one after another (a pass batch), for ONE atomic D1 batch.
 * What updates rows relative to their current values (RAC, totals, history, queues, BOINC's
 * statistics) stays one set of statements per pass, in pass order. What only inserts new rows
 * or sets values the last pass decides is written once for all of them: results and
 * workunits (each row with its own pass's time), new teams and host_app_versions (nothing
 * before their first pass reads them), the app versions' PFC walks (the samples of every pass
 * in order: the same steps), the final fair states and one KV mark of every subject.
 */
export function passBatchWrites(projectId: number, passes: readonly TimedEffects[]): SQL[] {
  const all = <T>(pick: (e: PassEffects) => readonly T[]) => passes.flatMap((p) => pick(p.effects));
  const pfcSamples = new Map<number, number[]>();
  const fairVersions = new Map<number, PassEffects["fairVersions"] extends Map<number, infer V> ? V : never>();
  for (const { effects } of passes) {
    for (const [id, samples] of effects.versionPfcSamples) pfcSamples.set(id, [...(pfcSamples.get(id) ?? []), ...samples]);
    for (const [id, state] of effects.fairVersions) fairVersions.set(id, state);
  }
  // A host_app_version's fair state is absolute: the last pass's is the one to write.
  const fairHosts = new Map<string, FairHostChange>();
  for (const { effects } of passes) for (const [key, change] of effects.fairHostAppVersions) fairHosts.set(key, change);
  return [
    ...outcomeInserts(
      projectId,
      passes.flatMap(({ now, effects }) => effects.results.map((r) => ({ ...r, outcome: r.validateState, decidedAt: now }))),
    ),
    ...chunks(passes.flatMap(({ now, effects }) => effects.workunits.map((w) => ({ id: w.id, appId: w.appId, credit: w.credit, creditedAt: wholeSeconds(now) })))).map((rows) =>
      insertFromJson(
        sql`${workunits}`,
        [
          [workunits.projectId, sql`${projectId}`],
          [workunits.id, "id"],
          [workunits.appId, "appId"],
          [workunits.credit, "credit"],
          [workunits.creditedAt, "creditedAt"],
        ],
        rows,
      ),
    ),
    ...batchAttributionWrites(projectId, passes.map((p) => ({ now: p.now, attributions: p.effects.attributions }))),
    // BOINC's statistics of a host_app_version take no `now`: one set of rounds (its k-th change
    // in round k) applies every pass's changes in pass order; a row the batch creates is
    // inserted with its first change.
    ...hostAppVersionWrites(projectId, all((e) => e.hostAppVersionsSeen), all((e) => e.hostAppVersionChanges), fairHosts),
    ...passes.flatMap(({ now, effects }) => {
      const groups = grantGroups(effects.grants);
      return [
        ...grantWrites(projectId, now, groups),
        ...versionCreditWrites(projectId, now, effects),
        // Last: the history copies each subject's RAC pair as the writes above left it.
        ...projectCreditWrite(projectId, now, effects.grants),
      ];
    }),
    ...fairVersionStateWrites(projectId, fairVersions),
    ...versionPfcWrites(projectId, pfcSamples),
    ...markSubjects(projectId, dirtySubjects(all((e) => e.attributions))),
  ];
}

/**
 * Creates hosts, users and teams first seen in this pass, with their RAC clock at `now`
 * (Part A §6), and records each host's owner and each user's team (latest pass wins, §5).
 */
export function attributionWrites(projectId: number, now: number, effects: Pick<PassEffects, "attributions">): SQL[] {
  return batchAttributionWrites(projectId, [{ now, attributions: effects.attributions }]);
}

/**
 * The attributions of passes in order: each new row gets the `now` of the first pass that
 * names it, each host the owner and each user the team the last one gives. No statement of a
 * pass reads a host's owner or a user's team, so setting them once for the batch leaves the
 * rows as passes posted one by one would, and an owner that changes and changes back is not
 * written at all.
 */
function batchAttributionWrites(projectId: number, passes: readonly { now: number; attributions: readonly Attribution[] }[]): SQL[] {
  const hostRows = new Map<number, { id: number; now: number; owner: number }>();
  const userRows = new Map<number, { id: number; now: number; team: number }>();
  const teamRows = new Map<number, { id: number; now: number }>();
  for (const { now, attributions } of passes) {
    for (const x of attributions) {
      hostRows.set(x.hostId, { id: x.hostId, now: hostRows.get(x.hostId)?.now ?? now, owner: x.userId });
      if (x.userId === 0) continue;
      userRows.set(x.userId, { id: x.userId, now: userRows.get(x.userId)?.now ?? now, team: x.teamId });
      if (x.teamId !== 0 && !teamRows.has(x.teamId)) teamRows.set(x.teamId, { id: x.teamId, now });
    }
  }
  const fresh = (table: typeof hosts | typeof users | typeof teams) =>
    [
      [table.projectId, sql`${projectId}`],
      [table.id, "id"],
      [table.createTime, "now"],
      [table.expavgTime, "now"],
    ] as const;
  return [
    ...chunks([...hostRows.values()]).map((rows) =>
      insertFromJson(
        sql`${hosts}`,
        [...fresh(hosts), [hosts.userId, "owner"]],
        rows,
        // Only a changed owner is written: an unchanged row costs no D1 write.
        sql`ON CONFLICT DO UPDATE SET ${name(hosts.userId)} = excluded.${name(hosts.userId)} WHERE ${name(hosts.userId)} IS NOT excluded.${name(hosts.userId)}`,
      ),
    ),
    ...chunks([...userRows.values()]).map((rows) =>
      insertFromJson(
        sql`${users}`,
        [...fresh(users), [users.teamId, "team"]],
        rows,
        sql`ON CONFLICT DO UPDATE SET ${name(users.teamId)} = excluded.${name(users.teamId)} WHERE ${name(users.teamId)} IS NOT excluded.${name(users.teamId)}`,
      ),
    ),
    ...chunks([...teamRows.values()]).map((rows) => insertFromJson(sql`${teams}`, fresh(teams), rows, sql`ON CONFLICT DO NOTHING`)),
  ];
}

/** Creates (zeroed) the host_app_versions that do not exist yet. */
export function ensureHostAppVersions(projectId: number, keys: readonly HostAppVersionKey[]): SQL[] {
  return chunks(keys).map((rows) =>
    insertFromJson(
      sql`${h}`,
      [
        [h.projectId, sql`${projectId}`],
        [h.hostId, "hostId"],
        [h.appId, "appId"],
        [h.appVersionId, "appVersionId"],
      ],
      rows,
      sql`ON CONFLICT DO NOTHING`,
    ),
  );
}

/**
 * Every host_app_version write of a pass: `created` names the rows the pass's snapshot did not
 * hold. A created row with changes is inserted with its first change already applied (one row
 * written, not an insert and then an update); one without changes is inserted zeroed. Inserted
 * without ON CONFLICT: if a concurrent pass created the row first, the batch fails on the key
 * and the pass runs again from a fresh snapshot (src/http/conflict-retry.ts).
 */
export function hostAppVersionWrites(
  projectId: number,
  created: readonly HostAppVersionKey[],
  changes: readonly HostAppVersionChange[],
  fair: ReadonlyMap<string, FairHostChange> = new Map(),
): SQL[] {
  const changed = new Set(changes.map(havKey));
  return [
    ...ensureHostAppVersions(
      projectId,
      created.filter((k) => !changed.has(havKey(k))),
    ),
    ...hostAppVersionChangeWrites(projectId, changes, fair, new Set(created.map(havKey))),
  ];
}

/** `column = CASE WHEN present THEN value ELSE column END`: a sample only some rows have. */
function whenPresent(present: SQL, values: Record<string, SQL>): Assignment[] {
  return Object.entries(values).map(([column, value]) => [column, sql`CASE WHEN ${present} THEN ${value} ELSE ${col(column)} END`]);
}

const havStats = {
  pfc: { n: h.pfcN.name, avg: h.pfcAvg.name },
  et: { n: h.etN.name, avg: h.etAvg.name, var: h.etVar.name, q: h.etQ.name },
  turnaround: { n: h.turnaroundN.name, avg: h.turnaroundAvg.name, var: h.turnaroundVar.name, q: h.turnaroundQ.name },
};

/** Column references for an average's current values, keyed like its fields. */
function refs<K extends string>(names: Record<K, string>): Record<K, SQL> {
  return Object.fromEntries(Object.entries(names).map(([k, v]) => [k, col(v as string)])) as Record<K, SQL>;
}

/** Renames the twin's fields to the columns they are stored in. */
function assign<K extends string>(names: Record<K, string>, values: Record<K, SQL>): Record<string, SQL> {
  return Object.fromEntries(Object.entries(names).map(([k, column]) => [column as string, values[k as K]]));
}

/**
 * Each result's samples and verdict, applied to its host_app_version row as it is now, in
 * pass order. A statement updates many rows but each row once: the k-th change of every row
 * goes into round k, and the rounds run in order. A row's fair state (absolute, computed by
 * the pass) rides in its last round, so the row is written once per change, not once more.
 */
export function hostAppVersionChangeWrites(
  projectId: number,
  changes: readonly HostAppVersionChange[],
  fair: ReadonlyMap<string, FairHostChange> = new Map(),
  created: ReadonlySet<string> = new Set(),
): SQL[] {
  const rounds: Record<string, unknown>[][] = [];
  const last = new Map<string, Record<string, unknown>>();
  const seen = new Map<string, number>();
  for (const c of changes) {
    const key = havKey(c);
    const round = seen.get(key) ?? 0;
    seen.set(key, round + 1);
    const row = {
      hostId: c.hostId,
      appId: c.appId,
      appVersionId: c.appVersionId,
      pfc: c.samples.pfc,
      et: c.samples.et,
      // A negative turnaround is not a sample (AVERAGE ignores it).
      turnaround: c.samples.turnaround !== undefined && c.samples.turnaround >= 0 ? c.samples.turnaround : undefined,
      cv: c.consecutiveValid,
      ...neutralFields(c),
    };
    (rounds[round] ??= []).push(row);
    last.set(key, row);
  }
  const unmerged = new Map<string, FairHostChange>();
  for (const [key, change] of fair) {
    const row = last.get(key);
    if (row) Object.assign(row, { fair: 1, ...fairHostFields(change.state) });
    else unmerged.set(key, change);
  }
  const s = (f: string) => ref("s", f);
  const set: Assignment[] = [
    ...whenPresent(sql`${s("pfc")} IS NOT NULL`, assign(havStats.pfc, averageUpdate.sql(refs(havStats.pfc), s("pfc"), HAV_AVERAGE))),
    ...whenPresent(sql`${s("et")} IS NOT NULL`, assign(havStats.et, averageVarUpdate.sql(refs(havStats.et), s("et"), HAV_AVERAGE))),
    ...whenPresent(
      sql`${s("turnaround")} IS NOT NULL`,
      assign(havStats.turnaround, averageVarUpdate.sql(refs(havStats.turnaround), s("turnaround"), HAV_AVERAGE)),
    ),
    [
      h.consecutiveValid.name,
      sql`CASE ${s("cv")} WHEN 'increment' THEN ${name(h.consecutiveValid)} + 1 WHEN 'reset' THEN 0 ELSE ${name(h.consecutiveValid)} END`,
    ],
    ...whenPresent(sql`${s("fair")} IS NOT NULL`, fairHostAssignments(s)),
    // Keeps the row's values when it has no sample (np NULL) by itself.
    ...Object.entries(neutralAssignments(s)),
  ];
  const fields = ["hostId", "appId", "appVersionId", "pfc", "et", "turnaround", "cv", "fair", ...FAIR_HOST_FIELDS, ...NEUTRAL_FIELDS];
  const update = (rows: readonly object[]) => sql`${withJsonRows("s", fields, rows)}
        UPDATE ${h} SET ${setClause(set)} FROM s
        WHERE ${name(h.projectId)} = ${projectId} AND ${name(h.hostId)} = ${s("hostId")}
          AND ${name(h.appId)} = ${s("appId")} AND ${name(h.appVersionId)} = ${s("appVersionId")}`;
  // The same assignments, evaluated on a zeroed row: what the insert and the update above
  // would have left, in one row written.
  const insert = (rows: readonly object[]) => sql`${withJsonRows("s", fields, rows)}
        INSERT INTO ${h} (${name(h.projectId)}, ${name(h.hostId)}, ${name(h.appId)}, ${name(h.appVersionId)}, ${sql.join(
          set.map(([c]) => col(c)),
          sql`, `,
        )})
        SELECT ${projectId}, ${s("hostId")}, ${s("appId")}, ${s("appVersionId")}, ${sql.join(
          set.map(([, v]) => v),
          sql`, `,
        )} FROM s, ${zeroedRow(set.map(([c]) => c))} WHERE true`;
  const [first = [], ...later] = rounds;
  const isCreated = (row: Record<string, unknown>) => created.has(havKey(row as unknown as HostAppVersionKey));
  return [
    ...chunks(first.filter(isCreated)).map(insert),
    ...chunks(first.filter((row) => !isCreated(row))).map(update),
    ...later.flatMap((round) => chunks(round).map(update)),
    ...fairHostStateWrites(projectId, unmerged),
  ];
}

/** `(SELECT default AS column, …) AS z`: a host_app_version as ensureHostAppVersions creates it. */
function zeroedRow(columns: readonly string[]): SQL {
  const byName = new Map(Object.values(getTableColumns(h)).map((c) => [c.name, c] as const));
  const values = columns.map((c) => {
    const column = byName.get(c);
    if (!column) throw new Error(`host_app_versions has no column ${c}`);
    const value = column.hasDefault ? (column.default as number | string | null) ?? null : null;
    // As the column stores its default: a REAL column's 0 is 0.0 (integer arithmetic on a
    // stored REAL would not happen in the update; it must not happen here either).
    // A schema default, never input: written into the SQL text to keep bound parameters few.
    const literal = typeof value === "number" ? sql.raw(String(value)) : sql`${value}`;
    const typed = value === null ? sql`NULL` : column.columnType === "SQLiteReal" ? sql`CAST(${literal} AS REAL)` : literal;
    return sql`${typed} AS ${col(c)}`;
  });
  return sql`(SELECT ${sql.join(values, sql`, `)}) AS z`;
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

interface CreditColumns {
  /** An app version has no total, only its RAC. */
  readonly total?: AnySQLiteColumn;
  readonly avg: AnySQLiteColumn;
  readonly time: AnySQLiteColumn;
  readonly njobs?: AnySQLiteColumn;
  /** A holder's table: the run also adds to the holder's day (history-transitions.ts). */
  readonly dayOf?: typeof hosts | typeof users | typeof teams;
}

/**
 * Applies each row's run of grants (grant_credit, Part B §2.13): total += the run's credit,
 * the RAC updated by the run. `keys` name the row: [column, number of the key's part].
 */
export function creditRunWrites(
  table: SQLiteTable & { projectId: AnySQLiteColumn },
  keys: readonly AnySQLiteColumn[],
  cols: CreditColumns,
  projectId: number,
  now: number,
  groups: ReadonlyMap<string, readonly GrantPart[]>,
): SQL[] {
  const rows = [...groups].map(([key, parts]) => {
    const run = grantRun(now, parts);
    const ids = key.split("/").map(Number);
    return {
      ...Object.fromEntries(ids.map((id, i) => [`k${i}`, id])),
      credit: run.first.credit,
      start: run.first.start,
      rest: run.restCredit,
      count: parts.filter((p) => p.job !== false).length,
      // The run's credit summed in pass order: what the day's history bucket adds.
      sum: parts.reduce((s, p) => s + p.credit, 0),
    };
  });
  const g = (f: string) => ref("g", f);
  const rac = recentAverageRun.sql(
    { avg: name(cols.avg), time: name(cols.time) },
    { now: sql`${now}`, credit: g("credit"), start: g("start"), rest: g("rest") },
  );
  const set: Assignment[] = [
    ...(cols.total ? [[cols.total.name, sql`${name(cols.total)} + ${g("credit")} + ${g("rest")}`] as const] : []),
    [cols.avg.name, rac.avg],
    [cols.time.name, rac.time],
    ...(cols.njobs ? [[cols.njobs.name, sql`${name(cols.njobs)} + ${g("count")}`] as const] : []),
    ...(cols.dayOf ? [dayCreditAssignment(cols.dayOf, now, g("sum"))] : []),
  ];
  const where = sql.join(
    keys.map((k, i) => sql`${name(k)} = ${g(`k${i}`)}`),
    sql` AND `,
  );
  const fields = [...keys.map((_, i) => `k${i}`), "credit", "start", "rest", "count", "sum"];
  return chunks(rows).map(
    (chunk) => sql`${withJsonRows("g", fields, chunk)} UPDATE ${table} SET ${setClause(set)} FROM g
      WHERE ${name(table.projectId)} = ${projectId} AND ${where}`,
  );
}

export function grantGroups(grants: readonly Grant[]): GrantGroups {
  return {
    hosts: groupGrants(grants, (g) => `${g.hostId}`),
    users: groupGrants(grants, (g) => (g.userId !== 0 ? `${g.userId}` : null)),
    // A host without an owner credits only itself (BOINC's zombie hosts, edge case E18).
    teams: groupGrants(grants, (g) => (g.userId !== 0 && g.teamId !== 0 ? `${g.teamId}` : null)),
    userApps: groupGrants(grants, (g) => (g.userId !== 0 && g.perApp !== "none" ? `${g.userId}/${g.appId}` : null)),
    // BOINC keeps per-app credit for team 0 ("no team") too (Part B §2.14).
    teamApps: groupGrants(grants, (g) => (g.userId !== 0 && g.perApp !== "none" ? `${g.teamId}/${g.appId}` : null)),
  };
}

/**
 * The grants' writes: first the history buckets the grants finish (history-transitions.ts,
 * from the rows as they are before this pass), then each holder's run (which also starts its
 * new day), then the pass's per-app credit as one queue row for the hourly fold.
 */
export function grantWrites(projectId: number, now: number, groups: GrantGroups): SQL[] {
  const holder = (t: typeof hosts | typeof users | typeof teams) => ({ total: t.totalCredit, avg: t.expavgCredit, time: t.expavgTime, dayOf: t });
  return [
    ...historyTransitionWrites(projectId, now, groups),
    ...creditRunWrites(hosts, [hosts.id], holder(hosts), projectId, now, groups.hosts),
    ...creditRunWrites(users, [users.id], holder(users), projectId, now, groups.users),
    ...creditRunWrites(teams, [teams.id], holder(teams), projectId, now, groups.teams),
    ...appCreditQueueWrites(projectId, now, groups),
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
  const step = averageUpdate.sql({ n: sql.raw("walk.n"), avg: sql.raw("walk.avg") }, sql.raw("sample.x"), params);
  return sql`WITH RECURSIVE
      sample(i, x) AS (SELECT CAST(j.key AS INTEGER), j.value FROM json_each(${JSON.stringify(samples)}) AS j),
      walk(i, n, avg) AS (
        SELECT 0, ${col(stats.n)}, ${col(stats.avg)} FROM ${table} WHERE ${where}
        UNION ALL
        SELECT walk.i + 1, ${step.n}, ${step.avg} FROM walk JOIN sample ON sample.i = walk.i
      )
    UPDATE ${table} SET (${col(stats.n)}, ${col(stats.avg)}) = (SELECT n, avg FROM walk ORDER BY i DESC LIMIT 1)
    WHERE ${where}`;
}

const byVersionId = (projectId: number, id: number) => sql`${name(appVersions.projectId)} = ${projectId} AND ${name(appVersions.id)} = ${id}`;

/**
 * End of the pass (Part B §2.15), per app version: all PFC samples (a walk; a batch's passes'
 * samples walked in pass order are the same steps) ...
 */
function versionPfcWrites(projectId: number, samples: ReadonlyMap<number, readonly number[]>): SQL[] {
  const av = appVersions;
  return [...samples].map(([id, list]) => averageWalk(av, { n: av.pfcN.name, avg: av.pfcAvg.name }, byVersionId(projectId, id), list, AV_AVERAGE));
}

/** ... and the credit samples, a RAC run at the pass's `now` (its own columns: the walk's order beside it does not matter). */
function versionCreditWrites(projectId: number, now: number, effects: PassEffects): SQL[] {
  const av = appVersions;
  const credit = new Map(
    [...effects.versionCreditSamples].map(([id, samples]) => [`${id}`, samples.map((s) => ({ credit: s.credit, start: s.time }))]),
  );
  return creditRunWrites(av, [av.id], { avg: av.expavgCredit, time: av.expavgTime }, projectId, now, credit);
}
