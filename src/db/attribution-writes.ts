/**
 * The holders a batch names: new hosts, users and teams created, and each host's owner and
 * each user's team recorded (docs/spec/credit.md#attribution). Their credit columns are the
 * grant walks' (holder-walks.ts); these are the only other columns of theirs a batch writes.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Attribution } from "../credit/pass";
import type { FreshHolders } from "./grant-groups";
import { type HolderKind, type HolderTable, hosts, teams, users } from "./schema";
import { chunks, insertFromJson, name } from "./sql-helpers";
import { keepOldOwnersCredit, ownerChangeClears } from "./owner-carriers";
import type { PhasedWrites } from "./write-phases";

type TimedAttributions = readonly { now: number; attributions: readonly Attribution[] }[];

/**
 * A pass batch's attribution phases: `holders`, the holders no grant statement inserts
 * (`fresh`: those each pass's grants insert, with the owner or team that pass gives them), and
 * `grantedHolders`, after the grants, the last owner or team of a holder a grant inserted with
 * an earlier pass's (none for a batch of one).
 */
export function attributionPhases(
  projectId: number,
  passes: TimedAttributions,
  fresh: readonly FreshHolders[],
): Pick<PhasedWrites, "holders" | "grantedHolders"> {
  const insertedWith = {
    hosts: new Map<number, number | null>(fresh.flatMap((f) => [...f.hosts])),
    users: new Map<number, number | null>(fresh.flatMap((f) => [...f.users])),
    teams: new Map<number, number | null>(fresh.flatMap((f) => [...f.teams])),
  };
  const last = lastAttributions(passes);
  return {
    holders: attributionWrites(projectId, passes, (kind, id) => !insertedWith[kind].has(id)),
    grantedHolders: attributionWrites(
      projectId,
      passes,
      (kind, id) => kind !== "teams" && insertedWith[kind].has(id) && insertedWith[kind].get(id) !== last[kind].get(id),
    ),
  };
}

/** Each host's owner and each user's team as the batch's last pass naming it gives them. */
function lastAttributions(passes: TimedAttributions): Record<HolderKind, Map<number, number | null>> {
  const hosts = new Map<number, number | null>();
  const users = new Map<number, number | null>();
  for (const { attributions } of passes) {
    for (const a of attributions) {
      hosts.set(a.hostId, a.userId);
      if (a.userId !== 0) users.set(a.userId, a.teamId);
    }
  }
  return { hosts, users, teams: new Map() };
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
  passes: TimedAttributions,
  include: (kind: HolderKind, id: number) => boolean = () => true,
  /** false when every owner named is the host's stored one (a trickle batch reads them): no owner changes. */
  ownersMayChange = true,
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
  const changed = (column: typeof hosts.userId | typeof users.teamId, also?: SQL) =>
    sql`ON CONFLICT DO UPDATE SET ${name(column)} = excluded.${name(column)}${also ? sql`, ${also}` : sql``} WHERE ${name(column)} IS NOT excluded.${name(column)}`;
  return [
    ...chunks([...hostRows.values()]).flatMap((rows) => [
      // A host that changes owner stops carrying the old owner's credit (owner-carriers.ts).
      ...(ownersMayChange
        ? keepOldOwnersCredit(
            projectId,
            rows.map((r) => ({ host: r.id, owner: r.owner })),
          )
        : []),
      insertFromJson(sql`${hosts}`, [...created(hosts), [hosts.userId, "owner"]], rows, changed(hosts.userId, ownerChangeClears)),
    ]),
    ...chunks([...userRows.values()]).map((rows) =>
      insertFromJson(sql`${users}`, [...created(users), [users.teamId, "team"]], rows, changed(users.teamId)),
    ),
    ...chunks([...teamRows.values()]).map((rows) => insertFromJson(sql`${teams}`, created(teams), rows, sql`ON CONFLICT DO NOTHING`)),
  ];
}
