/**
 * The write half of a validator pass: the engine's effects as SQL statements that apply
 * themselves to the rows' current values. The caller runs them as ONE D1 batch (atomic): the
 * results insert fails on a result id that another pass already decided, and the workunits
 * insert on a workunit another pass already credited, and then nothing is written.
 */
import { type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { AV_AVERAGE, HAV_AVERAGE } from "../credit/constants";
import type { HostAppVersionKey } from "../credit/host-app-version-key";
import type { Grant, HostAppVersionChange, PassEffects } from "../credit/pass";
import {
  appVersions,
  creditTeams,
  creditUsers,
  hostAppVersions,
  hosts,
  results,
  teams,
  users,
  workunits,
} from "./schema";
import { chunks, insertFromJson, name } from "./sql-helpers";
import {
  type Assignment,
  GRANT_RUN_SAMPLE,
  averageUpdate,
  averageVarUpdate,
  grantRun,
  grantRunValues,
  recentAverageRun,
  setClause,
} from "./stat-updates";

const h = hostAppVersions;

/** A result's final outcome as stored; absent fields are NULL. */
export interface OutcomeRow {
  readonly id: number;
  readonly workunitId?: number;
  readonly appId: number;
  readonly hostId: number;
  readonly appVersionId: number;
  readonly outcome: (typeof results.$inferSelect)["outcome"];
  readonly validateState?: "valid" | "invalid";
  readonly grantedCredit: number;
  readonly claimedCredit?: number | null;
  readonly pfcMode?: string | null;
  readonly fingerprint: string;
}

/** Inserts final outcomes; a result id already decided makes the whole batch fail. */
export function outcomeInserts(projectId: number, now: number, rows: readonly OutcomeRow[]): SQL[] {
  return chunks(rows).map((chunk) =>
    insertFromJson(
      sql`${results}`,
      [
        [results.projectId, sql`${projectId}`],
        [results.id, "id"],
        [results.workunitId, "workunitId"],
        [results.appId, "appId"],
        [results.hostId, "hostId"],
        [results.appVersionId, "appVersionId"],
        [results.outcome, "outcome"],
        [results.validateState, "validateState"],
        [results.grantedCredit, "grantedCredit"],
        [results.claimedCredit, "claimedCredit"],
        [results.pfcMode, "pfcMode"],
        [results.fingerprint, "fingerprint"],
        [results.decidedAt, sql`${now}`],
      ],
      chunk,
    ),
  );
}

export function passWrites(projectId: number, now: number, effects: PassEffects): SQL[] {
  return [
    ...outcomeInserts(
      projectId,
      now,
      effects.results.map((r) => ({ ...r, outcome: "success" as const })),
    ),
    ...chunks(effects.workunits).map((rows) =>
      insertFromJson(
        sql`${workunits}`,
        [
          [workunits.projectId, sql`${projectId}`],
          [workunits.id, "id"],
          [workunits.appId, "appId"],
          [workunits.credit, "credit"],
          [workunits.canonicalResultId, "canonicalResultId"],
          [workunits.creditedAt, sql`${now}`],
        ],
        rows,
      ),
    ),
    ...attributionWrites(projectId, now, effects),
    ...ensureHostAppVersions(projectId, effects.hostAppVersionsSeen),
    ...effects.hostAppVersionChanges.flatMap((c) => hostAppVersionChange(projectId, c) ?? []),
    ...grantWrites(projectId, now, effects.grants),
    ...versionWrites(projectId, now, effects),
  ];
}

/** Latest value per key (later entries win). */
function latest<K, V>(entries: readonly (readonly [K, V])[]): Map<K, V> {
  return new Map(entries);
}

/**
 * Creates hosts, users and teams first seen in this pass, with their RAC clock at `now`
 * (Part A §6), and records each host's owner and each user's team (latest pass wins, §5).
 */
function attributionWrites(projectId: number, now: number, effects: PassEffects): SQL[] {
  const a = effects.attributions;
  const owners = latest(a.map((x) => [x.hostId, x.userId] as const));
  const teamsOfUsers = latest(a.filter((x) => x.userId !== 0).map((x) => [x.userId, x.teamId] as const));
  const teamIds = new Set(a.filter((x) => x.userId !== 0 && x.teamId !== 0).map((x) => x.teamId));
  const fresh = (table: typeof hosts | typeof users | typeof teams) =>
    [
      [table.projectId, sql`${projectId}`],
      [table.id, "id"],
      [table.createTime, sql`${now}`],
      [table.expavgTime, sql`${now}`],
    ] as const;
  return [
    ...chunks([...owners].map(([id, owner]) => ({ id, owner }))).map((rows) =>
      insertFromJson(
        sql`${hosts}`,
        [...fresh(hosts), [hosts.userId, "owner"]],
        rows,
        sql`ON CONFLICT DO UPDATE SET ${name(hosts.userId)} = excluded.${name(hosts.userId)}`,
      ),
    ),
    ...chunks([...teamsOfUsers].map(([id, team]) => ({ id, team }))).map((rows) =>
      insertFromJson(
        sql`${users}`,
        [...fresh(users), [users.teamId, "team"]],
        rows,
        sql`ON CONFLICT DO UPDATE SET ${name(users.teamId)} = excluded.${name(users.teamId)}`,
      ),
    ),
    ...chunks([...teamIds].map((id) => ({ id }))).map((rows) =>
      insertFromJson(sql`${teams}`, fresh(teams), rows, sql`ON CONFLICT DO NOTHING`),
    ),
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

/** One result's samples and verdict applied to its host_app_version row as it is now. */
export function hostAppVersionChange(projectId: number, c: HostAppVersionChange): SQL | null {
  const set: Assignment[] = [];
  const values: SQL[] = [];
  if (c.samples.pfc !== undefined) {
    values.push(sql`${c.samples.pfc} AS s_pfc`);
    set.push(...averageUpdate.sql({ n: h.pfcN.name, avg: h.pfcAvg.name }, sql.raw("s.s_pfc"), HAV_AVERAGE));
  }
  if (c.samples.et !== undefined) {
    values.push(sql`${c.samples.et} AS s_et`);
    set.push(
      ...averageVarUpdate.sql(
        { n: h.etN.name, avg: h.etAvg.name, var: h.etVar.name, q: h.etQ.name },
        sql.raw("s.s_et"),
        HAV_AVERAGE,
      ),
    );
  }
  if (c.samples.turnaround !== undefined && c.samples.turnaround >= 0) {
    values.push(sql`${c.samples.turnaround} AS s_turnaround`);
    set.push(
      ...averageVarUpdate.sql(
        { n: h.turnaroundN.name, avg: h.turnaroundAvg.name, var: h.turnaroundVar.name, q: h.turnaroundQ.name },
        sql.raw("s.s_turnaround"),
        HAV_AVERAGE,
      ),
    );
  }
  if (c.consecutiveValid === "increment") set.push([h.consecutiveValid.name, sql`${name(h.consecutiveValid)} + 1`]);
  if (c.consecutiveValid === "reset") set.push([h.consecutiveValid.name, sql`0`]);
  if (set.length === 0) return null;
  const from = values.length > 0 ? sql`FROM (SELECT ${sql.join(values, sql`, `)}) AS s` : sql``;
  return sql`UPDATE ${h} SET ${setClause(set)} ${from}
    WHERE ${name(h.projectId)} = ${projectId} AND ${name(h.hostId)} = ${c.hostId}
      AND ${name(h.appId)} = ${c.appId} AND ${name(h.appVersionId)} = ${c.appVersionId}`;
}

type GrantPart = { credit: number; start: number };

/** Grants grouped by row, keeping pass order inside each group. */
function groupGrants<K>(grants: readonly Grant[], keyOf: (g: Grant) => K | null): Map<K, GrantPart[]> {
  const groups = new Map<K, GrantPart[]>();
  for (const g of grants) {
    const key = keyOf(g);
    if (key === null) continue;
    const part = { credit: g.credit, start: g.startTime };
    const list = groups.get(key);
    if (list) list.push(part);
    else groups.set(key, [part]);
  }
  return groups;
}

/** total += the run's credit; RAC updated by the run (grant_credit, Part B §2.13). */
function creditRunUpdate(
  table: SQLiteTable,
  cols: { total: AnySQLiteColumn; avg: AnySQLiteColumn; time: AnySQLiteColumn; njobs?: AnySQLiteColumn },
  where: SQL,
  now: number,
  parts: readonly GrantPart[],
): SQL {
  const run = grantRun(now, parts);
  const set: Assignment[] = [
    [cols.total.name, sql`${name(cols.total)} + g.g_credit + g.g_rest`],
    ...recentAverageRun.sql({ avg: cols.avg.name, time: cols.time.name }, GRANT_RUN_SAMPLE),
  ];
  if (cols.njobs) set.push([cols.njobs.name, sql`${name(cols.njobs)} + ${parts.length}`]);
  return sql`UPDATE ${table} SET ${setClause(set)} FROM (${grantRunValues(run)}) AS g WHERE ${where}`;
}

function grantWrites(projectId: number, now: number, grants: readonly Grant[]): SQL[] {
  const entity = (t: typeof hosts | typeof users | typeof teams) => ({
    total: t.totalCredit,
    avg: t.expavgCredit,
    time: t.expavgTime,
  });
  const byId = (t: typeof hosts | typeof users | typeof teams, id: number) =>
    sql`${name(t.projectId)} = ${projectId} AND ${name(t.id)} = ${id}`;
  const out: SQL[] = [];
  for (const [id, parts] of groupGrants(grants, (g) => g.hostId)) {
    out.push(creditRunUpdate(hosts, entity(hosts), byId(hosts, id), now, parts));
  }
  // A host without an owner credits only itself (BOINC's zombie hosts, edge case E18).
  for (const [id, parts] of groupGrants(grants, (g) => (g.userId !== 0 ? g.userId : null))) {
    out.push(creditRunUpdate(users, entity(users), byId(users, id), now, parts));
  }
  for (const [id, parts] of groupGrants(grants, (g) => (g.userId !== 0 && g.teamId !== 0 ? g.teamId : null))) {
    out.push(creditRunUpdate(teams, entity(teams), byId(teams, id), now, parts));
  }
  out.push(...creditByAppWrites(projectId, now, grants));
  return out;
}

/** BOINC's credit_user / credit_team rows (grant_credit_by_app, Part B §2.14): team 0 too. */
function creditByAppWrites(projectId: number, now: number, grants: readonly Grant[]): SQL[] {
  const out: SQL[] = [];
  const tables = [
    { table: creditUsers, holder: creditUsers.userId, of: (g: Grant) => (g.userId !== 0 ? g.userId : null) },
    { table: creditTeams, holder: creditTeams.teamId, of: (g: Grant) => (g.userId !== 0 ? g.teamId : null) },
  ];
  for (const { table, holder, of } of tables) {
    const groups = groupGrants(grants, (g) => {
      const id = of(g);
      return id === null ? null : `${id}/${g.appId}`;
    });
    const keys = [...groups.keys()].map((k) => {
      const [id, appId] = k.split("/").map(Number);
      return { id, appId };
    });
    // New rows start their RAC clock at now, so the first grant adds credit·ln2/7 (E14).
    out.push(
      ...chunks(keys).map((rows) =>
        insertFromJson(
          sql`${table}`,
          [
            [table.projectId, sql`${projectId}`],
            [holder, "id"],
            [table.appId, "appId"],
            [table.expavgTime, sql`${now}`],
          ],
          rows,
          sql`ON CONFLICT DO NOTHING`,
        ),
      ),
    );
    for (const [k, parts] of groups) {
      const [id, appId] = k.split("/").map(Number);
      const where = sql`${name(table.projectId)} = ${projectId} AND ${name(holder)} = ${id} AND ${name(table.appId)} = ${appId}`;
      out.push(
        creditRunUpdate(
          table,
          { total: table.total, avg: table.expavg, time: table.expavgTime, njobs: table.njobs },
          where,
          now,
          parts,
        ),
      );
    }
  }
  return out;
}

/** End of the pass (Part B §2.15): per app version, all PFC samples first, then the credit. */
function versionWrites(projectId: number, now: number, effects: PassEffects): SQL[] {
  const av = appVersions;
  const byId = (id: number) => sql`${name(av.projectId)} = ${projectId} AND ${name(av.id)} = ${id}`;
  const out: SQL[] = [];
  for (const [id, samples] of effects.versionPfcSamples) {
    for (const x of samples) {
      const set = averageUpdate.sql({ n: av.pfcN.name, avg: av.pfcAvg.name }, sql.raw("s.s_pfc"), AV_AVERAGE);
      out.push(sql`UPDATE ${av} SET ${setClause(set)} FROM (SELECT ${x} AS s_pfc) AS s WHERE ${byId(id)}`);
    }
  }
  for (const [id, samples] of effects.versionCreditSamples) {
    const run = grantRun(
      now,
      samples.map((s) => ({ credit: s.credit, start: s.time })),
    );
    const set = recentAverageRun.sql({ avg: av.expavgCredit.name, time: av.expavgTime.name }, GRANT_RUN_SAMPLE);
    out.push(sql`UPDATE ${av} SET ${setClause(set)} FROM (${grantRunValues(run)}) AS g WHERE ${byId(id)}`);
  }
  return out;
}
