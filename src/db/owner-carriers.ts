/**
 * A user's credit rides on a host its grant writes anyway (docs/storage.md#owners-credit-rides-on-a-host).
 * A grant run writes its host's row; when that host is one of the user's carriers (a short
 * list on the user's row) and still its owner's, the same UPDATE also writes the user's credit
 * columns after the batch into the host's owner_X columns, numbered by the user's credit_seq,
 * and the user's row is not written. Otherwise the user's row is written as before, and the
 * host joins its carriers for next time. A user's credit as it stands is the newest of its row
 * and its carriers' (usersAsTheyStand here for the writer, the users_now view for reads).
 */
import { type SQL, getTableColumns, getTableName, sql } from "drizzle-orm";
import { CREDIT_SEQ, type CreditColumn, HOLDER_CREDIT_COLUMNS } from "./credit-columns";
import type { FreshHolders } from "./grant-groups";
import type { Grant } from "../credit/pass";
import { hosts, users } from "./schema";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { col, jsonList, name } from "./sql-helpers";
import { setClause } from "./stat-updates";

/** The most hosts a user's row names as carriers: what reading a user's credit costs at most, in host rows. */
export const CARRIERS_PER_USER = 8;

/** The column of hosts that carries users' column `userColumn`. */
export const ownerColumn = (userColumn: string): string => `owner_${userColumn}`;

/** `alias`'s carrier holding its user's newest credit, or NULL: the id of that host (a subquery per user row). */
function newestCarrier(projectId: SQL, user: string): SQL {
  // CROSS JOIN: each carrier seeks its host by the key (a plain join scanned the project's hosts
  // for each user). The CASE: D1 counts a row read for the subquery of a user without carriers too.
  return sql`CASE WHEN ${sql.raw(user)}.${name(users.carriers)} IS NOT NULL THEN (SELECT h.${name(hosts.id)} FROM json_each(${sql.raw(user)}.${name(users.carriers)}) AS j
    CROSS JOIN ${hosts} AS h ON h.${name(hosts.projectId)} = ${projectId} AND h.${name(hosts.id)} = j.value
    WHERE h.${name(hosts.userId)} = ${sql.raw(user)}.${name(users.id)}
      AND h.${name(hosts.ownerCreditSeq)} > ${sql.raw(user)}.${name(users.creditSeq)}
    ORDER BY h.${name(hosts.ownerCreditSeq)} DESC LIMIT 1) END`;
}

/**
 * The users `ids` names (a list or a subquery) as their credit stands, as a table of `columns`
 * (by their names in users) with project_id and id: what the users_now view gives reads, for
 * the columns the writer walks. The ids go inside: SQLite does not flatten a subquery with a
 * LEFT JOIN into a join's right side, and would read every user of the project.
 */
export function usersAsTheyStand(projectId: number, columns: readonly CreditColumn<typeof users>[], ids: SQL): SQL {
  const values = sql.join(
    columns.map((c) => {
      const column = c.column(users).name;
      return sql`CASE WHEN c.${name(hosts.id)} IS NULL THEN u.${col(column)} ELSE c.${col(ownerColumn(column))} END AS ${col(column)}`;
    }),
    sql`, `,
  );
  return sql`(SELECT u.${name(users.projectId)} AS ${name(users.projectId)}, u.${name(users.id)} AS ${name(users.id)}, ${values}
    FROM ${users} AS u LEFT JOIN ${hosts} AS c ON c.${name(hosts.projectId)} = u.${name(users.projectId)}
      AND c.${name(hosts.id)} = ${newestCarrier(sql`u.${name(users.projectId)}`, "u")}
    WHERE u.${name(users.projectId)} = ${projectId} AND u.${name(users.id)} IN ${ids})`;
}

/**
 * Whether host `host` carries user `user`'s credit in this batch: it is one of the user's
 * carriers and still the user's (after the batch's owner changes), and the batch did not
 * create it. The hosts' statement and the users' evaluate it on the same rows (neither
 * changes a user's carriers or a host's owner), so a user is written by exactly one.
 */
export function carries(projectId: number, user: SQL, host: SQL, hostFresh: SQL): SQL {
  return sql`(${hostFresh} = 0
    AND EXISTS (SELECT 1 FROM ${users} AS cu CROSS JOIN json_each(cu.${name(users.carriers)}) AS cj
      WHERE cu.${name(users.projectId)} = ${projectId} AND cu.${name(users.id)} = ${user} AND cj.value = ${host})
    AND EXISTS (SELECT 1 FROM ${hosts} AS ch
      WHERE ch.${name(hosts.projectId)} = ${projectId} AND ch.${name(hosts.id)} = ${host} AND ch.${name(hosts.userId)} = ${user}))`;
}

/**
 * The user's carriers after its row is written: the hosts it was granted on in the batch
 * (`granted`, a JSON array, last granted first) that are still its own, then the others it
 * had (`current`), at most CARRIERS_PER_USER; NULL for none.
 */
export function carriersWith(projectId: number, user: SQL, granted: SQL, current: SQL): SQL {
  return sql`(SELECT nullif(json_group_array(v), '[]') FROM (SELECT v FROM (
      SELECT n.value AS v, n.key - ${sql.raw(String(CARRIERS_PER_USER))} AS o FROM json_each(${granted}) AS n
        CROSS JOIN ${hosts} AS ch ON ch.${name(hosts.projectId)} = ${projectId} AND ch.${name(hosts.id)} = n.value
        WHERE ch.${name(hosts.userId)} = ${user}
      UNION ALL
      SELECT j.value, j.key FROM json_each(${current}) AS j WHERE j.value NOT IN (SELECT value FROM json_each(${granted}))
    ) ORDER BY o LIMIT ${sql.raw(String(CARRIERS_PER_USER))}))`;
}

/**
 * A user's candidate carrier in a batch: the host of its last grant, and whether the batch
 * creates that host; and the hosts it was granted on, last first (a JSON array), to name carriers.
 */
export interface CarrierCandidate {
  readonly k: number;
  readonly host: number;
  readonly hostFresh: 0 | 1;
  readonly granted: string;
}

/** Each credited user's candidate carrier. */
export function carrierCandidates(
  passes: readonly { readonly grants: readonly Grant[]; readonly fresh: FreshHolders }[],
): Map<number, CarrierCandidate> {
  const freshHosts = new Set(passes.flatMap((p) => [...p.fresh.hosts.keys()]));
  const granted = new Map<number, number[]>();
  for (const { grants } of passes)
    for (const g of grants) {
      if (g.userId === 0) continue;
      const list = granted.get(g.userId) ?? [];
      granted.set(g.userId, [g.hostId, ...list.filter((h) => h !== g.hostId)]);
    }
  return new Map(
    [...granted].map(([k, hosts]) => {
      const host = hosts[0]!;
      return [k, { k, host, hostFresh: freshHosts.has(host) ? 1 : 0, granted: JSON.stringify(hosts.slice(0, CARRIERS_PER_USER)) }];
    }),
  );
}

/** A user's credit columns and credit_seq: what a carrier holds, and what an owner change saves to the row. */
const USER_CREDIT_COLUMNS = [...HOLDER_CREDIT_COLUMNS, CREDIT_SEQ];

/**
 * The users `ids` names (a list or subquery) take their credit as it stands into their rows
 * (`and`: which of them), as an UPDATE's assignments (each users column and its value) and
 * WHERE: keepOldOwnersCredit and keepCarriedCreditHome make it a statement, drizzleSet a `set`.
 */
function standingCreditUpdate(projectId: number, ids: SQL, and: SQL = sql``) {
  const standing = usersAsTheyStand(projectId, USER_CREDIT_COLUMNS, ids);
  const assignments = USER_CREDIT_COLUMNS.map((c) => {
    const column = c.column(users);
    return [column, sql`(SELECT s.${name(column)} FROM ${standing} AS s WHERE s.${name(users.id)} = ${users}.${name(users.id)})`] as const;
  });
  const where = sql`${users}.${name(users.projectId)} = ${projectId} AND ${users}.${name(users.id)} IN ${ids}${and}`;
  return { assignments, where };
}

/**
 * Before hosts change owner (`moves`: each host and the owner it gets): the old owner of each
 * host that carries credit gets its credit as it stands written into its row, for the change
 * then clears the host's owner_credit_seq (ownerChangeClears): a carrier carries only its
 * current owner's credit. Reads only, unless an owner actually changes on a carrier (rare).
 */
export function oldOwnersCreditUpdate(projectId: number, moves: readonly { host: number; owner: number }[]) {
  const oldOwners = sql`(SELECT h.${name(hosts.userId)} FROM json_each(${JSON.stringify(moves.map((m) => [m.host, m.owner]))}) AS m
      CROSS JOIN ${hosts} AS h ON h.${name(hosts.projectId)} = ${projectId} AND h.${name(hosts.id)} = json_extract(m.value, '$[0]')
    WHERE h.${name(hosts.userId)} IS NOT json_extract(m.value, '$[1]') AND h.${name(hosts.ownerCreditSeq)} IS NOT NULL)`;
  return standingCreditUpdate(projectId, oldOwners);
}

/**
 * Before a statement that computes on users' own rows' credit (a create_time given moves the
 * RAC clock of a user without credit, entities.upsert.ts): each user `ids` names whose newest
 * credit a carrier holds gets it written into its row first, which is then its credit as it
 * stands (credit_seq equal, so no carrier is newer). Reads only for a user without such a carrier.
 */
export function carriedCreditHomeUpdate(projectId: number, ids: readonly number[]) {
  return standingCreditUpdate(
    projectId,
    jsonList(ids),
    sql` AND ${newestCarrier(sql`${users}.${name(users.projectId)}`, getTableName(users))} IS NOT NULL`,
  );
}

/** Assignments to users' columns as drizzle's `set` takes them (by property name). */
export function drizzleSet(assignments: readonly (readonly [AnySQLiteColumn, SQL])[]): Record<string, SQL> {
  const keys = new Map<unknown, string>(Object.entries(getTableColumns(users)).map(([key, column]) => [column, key]));
  return Object.fromEntries(assignments.map(([column, value]) => [keys.get(column)!, value]));
}

const asStatement = ({ assignments, where }: ReturnType<typeof standingCreditUpdate>): SQL =>
  sql`UPDATE ${users} SET ${setClause(assignments.map(([column, value]) => [column.name, value]))} WHERE ${where}`;

/** oldOwnersCreditUpdate as a statement of a write batch (none for no moves). */
export function keepOldOwnersCredit(projectId: number, moves: readonly { host: number; owner: number }[]): SQL[] {
  return moves.length === 0 ? [] : [asStatement(oldOwnersCreditUpdate(projectId, moves))];
}

/** carriedCreditHomeUpdate as a statement of a write batch (none for no users). */
export function keepCarriedCreditHome(projectId: number, ids: readonly number[]): SQL[] {
  return ids.length === 0 ? [] : [asStatement(carriedCreditHomeUpdate(projectId, ids))];
}

/** A host's owner_credit_seq after an upsert sets its user_id to `excluded.user_id`: cleared when the owner changes. */
export const ownerSeqAfterUpsert = sql`CASE WHEN ${name(hosts.userId)} IS excluded.${name(hosts.userId)} THEN ${name(hosts.ownerCreditSeq)} ELSE NULL END`;

/** ownerSeqAfterUpsert as an assignment of the upsert's SET list. */
export const ownerChangeClears = sql`${name(hosts.ownerCreditSeq)} = ${ownerSeqAfterUpsert}`;
