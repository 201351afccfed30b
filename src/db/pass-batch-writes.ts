/**
 * The writes of passes decided one after another (POST /pass-batches), for ONE atomic D1
 * batch. What updates rows relative to their values and takes the pass's `now` (RAC, totals,
 * history, queues, the project row) stays one set of statements per pass, in pass order,
 * exactly as pass-writes.ts writes a pass alone. What only inserts rows or sets values the
 * last pass decides is written once for the batch: results and workunits (each row with its
 * own pass's time), new hosts, users and teams (the first naming pass's `now`; the last
 * owner and team: no statement of a pass reads them), the host_app_version rounds of all the
 * passes (their updates take no `now`: a row's k-th change in round k, in pass order), the
 * app versions' PFC walks over every pass's samples in order (the same steps) with their final
 * fair states, one statement per version, and one KV mark row.
 */
import { type SQL, sql } from "drizzle-orm";
import type { FairHostChange } from "../credit/fair-pass";
import type { FairVersionState } from "../credit/fair-state";
import type { Attribution, PassEffects } from "../credit/pass";
import { attributionCountWrites } from "./holder-counts";
import { markSubjects } from "./kv-marks";
import {
  type ExistingHolders,
  type FreshHolders,
  creditRunWrites,
  freshHolders,
  grantGroups,
  grantWrites,
  hostAppVersionWrites,
  outcomeInserts,
  versionStateWrites,
  workunitInserts,
} from "./pass-writes";
import { dirtySubjects, projectCreditWrite } from "./read-model-writes";
import { appVersions, hosts, teams, users } from "./schema";
import { chunks, insertFromJson, name, wholeSeconds } from "./sql-helpers";

/** One pass's effects and the `now` it was decided at. */
export interface TimedEffects {
  readonly now: number;
  readonly effects: PassEffects;
}

export function passBatchWrites(projectId: number, passes: readonly TimedEffects[], existing: ExistingHolders): SQL[] {
  const all = <T>(pick: (e: PassEffects) => readonly T[]) => passes.flatMap((p) => pick(p.effects));
  // Holders a pass both creates and credits are inserted by its grant statement (as for a pass
  // alone); a holder exists for every later pass once a pass has named it.
  const known = { hosts: new Set(existing.hosts), users: new Set(existing.users), teams: new Set(existing.teams) };
  const fresh: FreshHolders[] = passes.map(({ effects }) => {
    const f = freshHolders(effects, grantGroups(effects.grants), known);
    for (const a of effects.attributions) {
      known.hosts.add(a.hostId);
      if (a.userId !== 0) known.users.add(a.userId);
      if (a.userId !== 0 && a.teamId !== 0) known.teams.add(a.teamId);
    }
    return f;
  });
  const insertedByGrants = {
    hosts: new Set(fresh.flatMap((f) => [...f.hosts.keys()])),
    users: new Set(fresh.flatMap((f) => [...f.users.keys()])),
    teams: new Set(fresh.flatMap((f) => [...f.teams.keys()])),
  };
  const pfcSamples = new Map<number, number[]>();
  const fairVersions = new Map<number, FairVersionState>();
  // A host_app_version's fair state is absolute: the last pass's is the one to write.
  const fairHosts = new Map<string, FairHostChange>();
  for (const { effects } of passes) {
    for (const [id, samples] of effects.versionPfcSamples) pfcSamples.set(id, [...(pfcSamples.get(id) ?? []), ...samples]);
    for (const [id, state] of effects.fairVersions) fairVersions.set(id, state);
    for (const [key, change] of effects.fairHostAppVersions) fairHosts.set(key, change);
  }
  const attributions = passes.map((p) => ({ now: p.now, attributions: p.effects.attributions }));
  return [
    // Before any insert of a holder: it counts the ones not stored yet.
    ...attributionCountWrites(projectId, all((e) => e.attributions)),
    ...outcomeInserts(
      projectId,
      0,
      passes.flatMap(({ now, effects }) => effects.results.map((r) => ({ ...r, outcome: r.validateState, decidedAt: now }))),
    ),
    ...workunitInserts(
      projectId,
      passes.flatMap(({ now, effects }) => effects.workunits.map((w) => ({ id: w.id, appId: w.appId, credit: w.credit, at: wholeSeconds(now) }))),
    ),
    ...attributionWrites(projectId, attributions, (kind, id) => !insertedByGrants[kind].has(id)),
    ...hostAppVersionWrites(projectId, all((e) => e.hostAppVersionsSeen), all((e) => e.hostAppVersionChanges), fairHosts),
    ...passes.flatMap(({ now, effects }, k) => [
      ...grantWrites(projectId, now, grantGroups(effects.grants), fresh[k]),
      ...versionCreditWrites(projectId, now, effects),
      ...projectCreditWrite(projectId, now, effects.grants),
    ]),
    // A holder a grant inserted takes the owner or team the batch's last pass gives it (written only if another).
    ...attributionWrites(projectId, attributions, (kind, id) => kind !== "teams" && insertedByGrants[kind].has(id)),
    ...versionStateWrites(projectId, [...pfcSamples.keys()], pfcSamples, fairVersions),
    ...markSubjects(projectId, dirtySubjects(all((e) => e.attributions))),
  ];
}

/** An app version's credit samples: a RAC run at the pass's `now` (its own columns: the PFC walk's place beside it does not matter). */
function versionCreditWrites(projectId: number, now: number, effects: PassEffects): SQL[] {
  const av = appVersions;
  const credit = new Map(
    [...effects.versionCreditSamples].map(([id, samples]) => [`${id}`, samples.map((s) => ({ credit: s.credit, start: s.time }))]),
  );
  return creditRunWrites(av, [av.id], { avg: av.expavgCredit, time: av.expavgTime }, projectId, now, credit);
}

type Kind = "hosts" | "users" | "teams";

/**
 * The batch's hosts, users and teams that `include` picks: each new one with the `now` of the
 * first pass naming it, each host with the owner and each user with the team the last one
 * gives; an owner that changes and changes back within the batch is not written at all.
 */
function attributionWrites(
  projectId: number,
  passes: readonly { now: number; attributions: readonly Attribution[] }[],
  include: (kind: Kind, id: number) => boolean,
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
  const created = (table: typeof hosts | typeof users | typeof teams) =>
    [
      [table.projectId, sql`${projectId}`],
      [table.id, "id"],
      [table.createTime, "now"],
      [table.expavgTime, "now"],
    ] as const;
  const changed = (column: typeof hosts.userId | typeof users.teamId) =>
    sql`ON CONFLICT DO UPDATE SET ${name(column)} = excluded.${name(column)} WHERE ${name(column)} IS NOT excluded.${name(column)}`;
  return [
    ...chunks([...hostRows.values()]).map((rows) => insertFromJson(sql`${hosts}`, [...created(hosts), [hosts.userId, "owner"]], rows, changed(hosts.userId))),
    ...chunks([...userRows.values()]).map((rows) => insertFromJson(sql`${users}`, [...created(users), [users.teamId, "team"]], rows, changed(users.teamId))),
    ...chunks([...teamRows.values()]).map((rows) => insertFromJson(sql`${teams}`, created(teams), rows, sql`ON CONFLICT DO NOTHING`)),
  ];
}
