/**
 * A project's host, user and team counts (projects.host_count …), kept by whoever inserts the
 * holders: the named ids not stored yet are added to them BEFORE the inserts, in the batch's
 * project-row statement when it has one (a granting batch's walk: holder-walks.ts), else in a
 * statement of their own. A batch runs alone, so what it counts missing is what its inserts
 * create; a trigger per inserted row would write the project's row once per new holder instead
 * of once per batch (docs/storage.md, "What a pass writes").
 */
import { type SQL, sql } from "drizzle-orm";
import type { Attribution } from "../credit/pass";
import { type HolderTable, hosts, projects, teams, users } from "./schema";
import { name } from "./sql-helpers";

export interface NamedHolders {
  readonly hosts?: Iterable<number>;
  readonly users?: Iterable<number>;
  readonly teams?: Iterable<number>;
}

/**
 * The count update's parts: each count raised by the named ids not stored yet, and the
 * condition that writes the row only when something is missing; null when none is named.
 * The pass writers render them as SQL (holderCountWrites), a registration through drizzle's
 * update builder (routes/entities/entities.upsert.ts).
 */
export function holderCountUpdate(projectId: number, named: NamedHolders) {
  const missing = (table: HolderTable, ids: Iterable<number> | undefined) => {
    const list = [...new Set(ids ?? [])];
    return list.length === 0
      ? null
      : sql`(SELECT count(*) FROM json_each(${JSON.stringify(list)}) AS j
        WHERE NOT EXISTS (SELECT 1 FROM ${table} WHERE ${name(table.projectId)} = ${projectId} AND ${name(table.id)} = j.value))`;
  };
  const counts = { hosts: missing(hosts, named.hosts), users: missing(users, named.users), teams: missing(teams, named.teams) };
  if (!counts.hosts && !counts.users && !counts.teams) return null;
  const n = { hosts: counts.hosts ?? sql`0`, users: counts.users ?? sql`0`, teams: counts.teams ?? sql`0` };
  const p = projects;
  return {
    set: {
      hostCount: sql`${name(p.hostCount)} + ${n.hosts}`,
      userCount: sql`${name(p.userCount)} + ${n.users}`,
      teamCount: sql`${name(p.teamCount)} + ${n.teams}`,
    },
    where: sql`${name(p.id)} = ${projectId} AND ${n.hosts} + ${n.users} + ${n.teams} > 0`,
  };
}

export type HolderCountUpdate = NonNullable<ReturnType<typeof holderCountUpdate>>;

/** The count update's assignments, for its own statement or one that writes the project's row anyway. */
export function holderCountAssignments(u: HolderCountUpdate): SQL {
  const p = projects;
  return sql`${name(p.hostCount)} = ${u.set.hostCount}, ${name(p.userCount)} = ${u.set.userCount}, ${name(p.teamCount)} = ${u.set.teamCount}`;
}

/** The count update as a statement of its own (none when it names no holder). */
export function holderCountStatement(u: HolderCountUpdate | null): SQL[] {
  return u ? [sql`UPDATE ${projects} SET ${holderCountAssignments(u)} WHERE ${u.where}`] : [];
}

/** The count update for the hosts, users and teams results or trickles name (a user 0 names no user or team). */
export function attributionCounts(projectId: number, attributions: readonly Attribution[]): HolderCountUpdate | null {
  const owned = attributions.filter((a) => a.userId !== 0);
  return holderCountUpdate(projectId, {
    hosts: attributions.map((a) => a.hostId),
    users: owned.map((a) => a.userId),
    teams: owned.filter((a) => a.teamId !== 0).map((a) => a.teamId),
  });
}
