/**
 * Who a pass's grants credit, row by row (hosts, users, teams, and the per-app rows of users
 * and teams), and which of those holders the pass creates. The pass writers (pass-writes.ts,
 * pass-batch-writes.ts, trickle-writes.ts) build them; the grant statements (grant-writes.ts,
 * holder-walks.ts, app-credit-queue.ts, history-transitions.ts) read them.
 */
import type { Grant, PassEffects } from "../credit/pass";

/** `job: false`: credit without a job (a trickle), so njobs does not count it. */
export type GrantPart = { credit: number; start: number; job?: boolean };

/** Who a pass credits: each grant's rows, keyed as creditRunWrites names them ("id" or "id/app"). */
export interface GrantGroups {
  readonly hosts: Map<string, GrantPart[]>;
  readonly users: Map<string, GrantPart[]>;
  readonly teams: Map<string, GrantPart[]>;
  readonly userApps: Map<string, GrantPart[]>;
  readonly teamApps: Map<string, GrantPart[]>;
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
