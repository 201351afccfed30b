/**
 * The credit of passes decided in order (a pass batch; a pass alone is a batch of one) on
 * hosts, users, teams and the project row, in a few statements whatever the number of passes
 * (docs/storage.md#pass-batches). Each row walks its grant runs in pass order, each step one
 * pass's update at its own `now` (the steps of credit-columns.ts), and only the last step is
 * written. Every part of a walk (base rows, step, the UPDATE and INSERT of its last step) is
 * generated from the column list. The day buckets the steps finish (a grant on a later day
 * than the row's last) are written first, by ONE statement that walks the same rows from their
 * stored values: each bucket is finished once, so they need no order among themselves.
 */
import { type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Grant } from "../credit/pass";
import type { FreshHolders, GrantGroups } from "./grant-groups";
import { type HistoryTarget, dayAt, finishedBucketWrites, finishesDay, storedFinishedDays } from "./history-transitions";
import { type CreditSubject, type HolderKind, type HolderTable, hosts, projects, teams, users } from "./schema";
import { CREDIT_SEQ, type CreditColumn, HOLDER_CREDIT_COLUMNS, PROJECT_CREDIT_COLUMNS } from "./credit-columns";
import { type CarrierCandidate, carrierCandidates, carries, carriersWith, ownerColumn, usersAsTheyStand } from "./owner-carriers";
import { appCreditQueueWrites } from "./app-credit-queue";
import { type HolderCountUpdate, holderCountAssignments, holderCountStatement } from "./holder-counts";
import { QueueNumbers } from "./queue-numbers";
import type { PhasedWrites } from "./write-phases";
import { col, jsonList, jsonRowsTable, name, ref, zeroedRow } from "./sql-helpers";
import { setClause } from "./stat-updates";
import { numberSteps, packPieces } from "./walks";
import { type Step, carried, creditWalk, names, runStep, s, storedBase, storedRows, storedWalkUpdate, w, walked } from "./credit-walks";

/** A pass of the batch as the walks need it: its `now`, grant groups, grants and fresh holders. */
export interface WalkedPass {
  readonly now: number;
  readonly groups: GrantGroups;
  readonly grants: readonly Grant[];
  readonly fresh: FreshHolders;
}

interface HolderWalk {
  readonly subject: CreditSubject;
  /** Names the walk's CTEs (`h_s`, `h_w`, …), apart from the other tables' and the project's (`p_`). */
  readonly prefix: string;
  readonly table: HolderTable;
  /** The column a fresh row is inserted with (a host's owner, a user's team). */
  readonly attribution?: AnySQLiteColumn;
  readonly steps: Step[];
  /** Rows the batch inserts: key → the `now` of the pass that creates it, and its attribution. */
  readonly fresh: Map<number, { createdAt: number; attribution: number | null }>;
  /** The columns it walks: the holders' list, and a user's credit_seq (owner-carriers.ts). */
  readonly columns: readonly CreditColumn<HolderTable>[];
  /** Where the rows `ids` names (a list or subquery) are read: the table, or for users their credit as it stands (owner-carriers.ts). */
  readonly source: (ids: SQL) => SQL;
}

const HOLDERS = {
  hosts: { subject: "host", prefix: "h_", table: hosts, attribution: hosts.userId },
  users: { subject: "user", prefix: "u_", table: users, attribution: users.teamId },
  teams: { subject: "team", prefix: "t_", table: teams, attribution: undefined },
} as const;

function holderWalk(
  projectId: number,
  kind: keyof typeof HOLDERS,
  passes: readonly WalkedPass[],
  holderColumns: readonly CreditColumn<HolderTable>[],
): HolderWalk {
  const fresh = new Map<number, { createdAt: number; attribution: number | null }>();
  for (const { now, fresh: created } of passes)
    for (const [k, value] of created[kind]) fresh.set(k, { createdAt: now, attribution: value });
  const steps = numberSteps(passes.flatMap(({ now, groups }) => [...groups[kind]].map(([key, parts]) => runStep(Number(key), now, parts))));
  const table = HOLDERS[kind].table;
  if (table !== users) return { ...HOLDERS[kind], steps, fresh, columns: holderColumns, source: () => sql`${table}` };
  const columns = [...holderColumns, CREDIT_SEQ];
  return { ...HOLDERS[kind], steps, fresh, columns, source: (ids) => usersAsTheyStand(projectId, columns, ids) };
}

/** The buckets a walk finishes: the row as it was before each step that begins a later day. */
function finishedBy(p: string, subject: CreditSubject, entityId: SQL): SQL {
  return sql`SELECT ${subject} AS subject, ${entityId} AS entity_id, ${dayAt(w("time"))} AS day, w.dc AS credit, w.avg AS avg, w.time AS time
    FROM ${sql.raw(`${p}w`)} AS w JOIN ${sql.raw(`${p}s`)} AS s ON s.k = +w.k AND s.i = w.i + 1
    WHERE ${finishesDay({ time: w("time"), dayCredit: w("dc") }, s("day"))}`;
}

/**
 * Fresh rows as an insert of their key alone would create them, a column that starts at `now`
 * at their creating pass's; or, for a row a concurrent request created since the batch's
 * read, the row as stored (found by its key), so that its walk is a stored row's.
 */
function freshBase(
  p: string,
  t: HolderTable,
  columns: readonly CreditColumn<HolderTable>[],
  projectId: number,
  source: HolderWalk["source"],
): SQL {
  const values = sql.join(
    columns.map((c) => {
      const column = name(c.column(t));
      return sql`coalesce(o.${column}, ${c.startsAtNow ? sql.raw("f.createdAt") : sql`z.${column}`}) AS ${sql.raw(c.as)}`;
    }),
    sql`, `,
  );
  return sql`SELECT f.k AS k, ${values}
    FROM ${sql.raw(`${p}f`)} AS f JOIN ${zeroedRow(
      t,
      columns.filter((c) => !c.startsAtNow).map((c) => c.column(t).name),
    )}
    LEFT JOIN ${source(sql`(SELECT k FROM ${sql.raw(`${p}f`)})`)} AS o ON o.${name(t.projectId)} = ${projectId} AND o.${name(t.id)} = f.k`;
}

function freshRows(p: string, walk: HolderWalk): SQL {
  return jsonRowsTable(
    `${p}f`,
    ["k", "createdAt", "attribution"],
    [...walk.fresh].map(([k, f]) => ({ k, ...f })),
  );
}

/** The walk over stored rows and fresh ones together (for the finished buckets). */
function wholeWalk(projectId: number, walk: HolderWalk): SQL {
  const { prefix: p, columns } = walk;
  const stored = [...new Set(walk.steps.filter((x) => !walk.fresh.has(x.k)).map((x) => x.k))];
  const bases = [
    ...(stored.length > 0
      ? [storedBase(walk.table, columns, storedRows(walk.table, projectId, stored), walk.source(jsonList(stored)))]
      : []),
    ...(walk.fresh.size > 0 ? [freshBase(p, walk.table, columns, projectId, walk.source)] : []),
  ];
  return sql`${walk.fresh.size > 0 ? sql`${freshRows(p, walk)}, ` : sql``}${creditWalk(p, columns, sql.join(bases, sql` UNION ALL `), walk.steps)}`;
}

/**
 * The fresh rows' walk, inserted: one row written per new holder. A row a concurrent request
 * created first was walked from its stored values (freshBase), so the insert writes the walk's
 * end over it (ON CONFLICT DO UPDATE) with the batch's attribution, keeping its create_time: a
 * holder two requests create is no conflict.
 */
function freshInsert(projectId: number, walk: HolderWalk, candidates: ReadonlyMap<number, CarrierCandidate>): SQL[] {
  if (walk.fresh.size === 0) return [];
  const columns = walk.columns;
  const t = walk.table;
  const p = walk.prefix;
  const steps = walk.steps.filter((x) => walk.fresh.has(x.k));
  const attribution = walk.attribution;
  // A new user names the hosts it was granted on its carriers (owner-carriers.ts): its next grant on one is carried.
  const named = t === users ? candidatesOf(walk.fresh.keys(), candidates) : [];
  const carrierList = named.length > 0;
  return [
    sql`WITH RECURSIVE ${freshRows(p, walk)}, ${creditWalk(p, columns, freshBase(p, t, columns, projectId, walk.source), steps)}${
      carrierList ? sql`, ${jsonRowsTable("u_c", CANDIDATE_FIELDS, named)}` : sql``
    }
      INSERT INTO ${t} (${name(t.projectId)}, ${name(t.id)}, ${name(t.createTime)}, ${attribution ? sql`${name(attribution)}, ` : sql``}${names(t, columns)}${
        carrierList ? sql`, ${name(users.carriers)}` : sql``
      })
      SELECT ${projectId}, w.k, f.createdAt, ${attribution ? sql`f.attribution, ` : sql``}${walked("w", columns)}${
        carrierList ? sql`, ${carriersWith(projectId, sql`w.k`, sql`c.granted`, sql`NULL`)}` : sql``
      }
      FROM ${sql.raw(`${p}w`)} AS w JOIN ${sql.raw(`${p}f`)} AS f ON f.k = w.k ${carrierList ? sql`LEFT JOIN u_c AS c ON c.k = +w.k` : sql``}
      WHERE w.fin = 1
      ON CONFLICT DO UPDATE SET ${setClause([
        ...(attribution ? [[attribution.name, sql`excluded.${name(attribution)}`] as const] : []),
        ...columns.map((c) => [c.column(t).name, sql`excluded.${name(c.column(t))}`] as const),
        ...(carrierList ? [[users.carriers.name, sql`excluded.${name(users.carriers)}`] as const] : []),
      ])}`,
  ];
}

/**
 * The project row: a step per granting pass, also raising queue_seq and moving its first credit
 * back. `update()` writes the walk's end, raising queue_seq past the numbers `queue` gave out:
 * call it after every statement that takes one.
 */
function projectWalk(projectId: number, passes: readonly WalkedPass[], queue: QueueNumbers) {
  const steps = numberSteps(
    passes
      .filter((x) => x.grants.length > 0)
      .map(({ now, grants }) => {
        const st = runStep(
          projectId,
          now,
          grants.map((g) => ({ credit: g.credit, start: g.startTime })),
        );
        return { ...st, add: st.credit + st.rest };
      }),
  );
  const pr = projects;
  const columns = PROJECT_CREDIT_COLUMNS;
  const ctes = creditWalk("p_", columns, storedBase(pr, columns, sql`${name(pr.id)} = ${projectId}`), steps);
  const update = (counts: HolderCountUpdate | null): SQL[] => {
    if (steps.length === 0) return [];
    const last = sql.join(
      columns.map((c) => (c.column(pr) === pr.queueSeq ? queue.raise(w(c.as), steps.length) : w(c.as))),
      sql`, `,
    );
    return [
      sql`WITH RECURSIVE ${ctes}
        UPDATE ${pr} SET (${names(pr, columns)}) = (SELECT ${last} FROM p_w AS w WHERE w.fin = 1)${counts ? sql`, ${holderCountAssignments(counts)}` : sql``}
        WHERE ${name(pr.id)} = ${projectId}`,
    ];
  };
  return { steps, ctes, update };
}

/** A table's walk split by rows (all of a row's steps in one part; packPieces). */
function parts(walk: HolderWalk): HolderWalk[] {
  const byRow = new Map<number, Step[]>();
  for (const x of walk.steps) {
    const list = byRow.get(x.k);
    if (list) list.push(x);
    else byRow.set(x.k, [x]);
  }
  return packPieces([...byRow.values()], (steps) => steps.length).map((rows) => {
    const steps = rows.flat();
    const keys = new Set(steps.map((x) => x.k));
    return { ...walk, steps, fresh: new Map([...walk.fresh].filter(([k]) => keys.has(k))) };
  });
}

/** finishedBy for rows as stored: each of `firstDays` (row key, the day it is granted on) against its row. */
function finishedOnDays(projectId: number, walk: HolderWalk, firstDays: readonly (readonly [number, number])[]): SQL {
  const t = walk.table;
  // CROSS JOIN: each key seeks its row by the primary key, never a scan of the table.
  return storedFinishedDays(
    walk.subject,
    t,
    sql`t.${name(t.id)}`,
    sql`json_each(${JSON.stringify(firstDays)}) AS j CROSS JOIN ${walk.source(sql`(SELECT json_extract(value, '$[0]') FROM json_each(${JSON.stringify(firstDays)}))`)} AS t`,
    sql`t.${name(t.projectId)} = ${projectId} AND t.${name(t.id)} = json_extract(j.value, '$[0]')`,
    sql`json_extract(j.value, '$[1]')`,
  );
}

/** The walk with the rows of `created` (key → the `now` it is created at) it steps through as fresh rows too. */
function withCreated(walk: HolderWalk, created: ReadonlyMap<number, number>): HolderWalk {
  const stepped = new Set(walk.steps.map((x) => x.k));
  const more = [...created].filter(([k]) => stepped.has(k) && !walk.fresh.has(k));
  if (more.length === 0) return walk;
  return { ...walk, fresh: new Map([...walk.fresh, ...more.map(([k, createdAt]) => [k, { createdAt, attribution: null }] as const)]) };
}

/**
 * A walk's rows whose steps all fall on one day, and the walk of the others. A bucket is
 * finished by a step on a later day than the row's last grant (finishesDay); after a row's
 * first step its last grant is on that step's day or later (the RAC clock never moves back),
 * so a row granted on one day only can finish a bucket at its first step alone: the stored
 * row (or, for a fresh one, the row a concurrent request created, else none) against that
 * day, with no walk. Only rows granted on two days or more need their steps walked.
 */
function splitByDays(walk: HolderWalk): { firstDays: [k: number, day: number][]; walked: HolderWalk } {
  const days = new Map<number, number[]>();
  for (const x of walk.steps) {
    const list = days.get(x.k);
    if (list) list.push(x.day);
    else days.set(x.k, [x.day]);
  }
  const oneDay = new Set([...days].filter(([, d]) => d.every((day) => day === d[0])).map(([k]) => k));
  return {
    firstDays: [...oneDay].map((k) => [k, days.get(k)![0]!]),
    walked: {
      ...walk,
      steps: walk.steps.filter((x) => !oneDay.has(x.k)),
      fresh: new Map([...walk.fresh].filter(([k]) => !oneDay.has(k))),
    },
  };
}

/**
 * A part's stored rows walked and written. Hosts: each also carries the credit of the stored
 * users whose candidate carrier it is, when it carries them (owner-carriers.ts `carries`), in
 * the same UPDATE. Users: those no host carried, each naming its last grant's host a carrier.
 */
function storedHolderUpdate(
  projectId: number,
  part: HolderWalk,
  userWalk: HolderWalk,
  candidates: ReadonlyMap<number, CarrierCandidate>,
): SQL[] {
  const steps = part.steps.filter((step) => !part.fresh.has(step.k));
  if (steps.length === 0) return [];
  if (part.table === hosts) {
    const hostKeys = new Set(steps.map((x) => x.k));
    const carriedUsers = [...candidates.values()].filter((c) => c.hostFresh === 0 && hostKeys.has(c.host) && !userWalk.fresh.has(c.k));
    if (carriedUsers.length === 0) return storedWalkUpdate(projectId, hosts, part.prefix, part.columns, steps);
    return [hostsCarryingOwners(projectId, part, steps, userWalk, carriedUsers)];
  }
  if (part.table === users) return [usersNotCarried(projectId, part, steps, candidates)];
  return storedWalkUpdate(projectId, part.table, part.prefix, part.columns, steps);
}

const CANDIDATE_FIELDS = ["k", "host", "hostFresh", "granted"];
/** The candidates of the users `keys` names (every credited user has one). */
const candidatesOf = (keys: Iterable<number>, candidates: ReadonlyMap<number, CarrierCandidate>) =>
  [...keys].flatMap((k) => (candidates.has(k) ? [candidates.get(k)!] : []));
const stepsOf = (walk: HolderWalk, keys: ReadonlySet<number>) => walk.steps.filter((x) => keys.has(x.k));
const assignFrom = (t: HolderTable, columns: readonly CreditColumn<HolderTable>[], alias: string) =>
  columns.map((c) => [c.column(t).name, ref(alias, c.as)] as const);

/** A hosts part's UPDATE, each host also taking the credit of the user it carries (`o`), if any. */
function hostsCarryingOwners(
  projectId: number,
  part: HolderWalk,
  steps: readonly Step[],
  userWalk: HolderWalk,
  carriedUsers: readonly CarrierCandidate[],
): SQL {
  const hostKeys = [...new Set(steps.map((x) => x.k))];
  const userKeys = carriedUsers.map((c) => c.k);
  const [h, u] = [part, userWalk];
  const ownerAssignments = u.columns.map((c) => {
    const owner = ownerColumn(c.column(users).name);
    return [owner, sql`CASE WHEN o.k IS NULL THEN ${col(owner)} ELSE ${ref("o", c.as)} END`] as const;
  });
  return sql`WITH RECURSIVE ${creditWalk(h.prefix, h.columns, storedBase(hosts, h.columns, storedRows(hosts, projectId, hostKeys)), steps)},
      ${creditWalk(u.prefix, u.columns, storedBase(users, u.columns, storedRows(users, projectId, userKeys), u.source(jsonList(userKeys))), stepsOf(u, new Set(userKeys)))},
      ${jsonRowsTable("u_c", CANDIDATE_FIELDS, carriedUsers)},
      h_z AS MATERIALIZED (SELECT k, ${carried(h.columns)} FROM ${sql.raw(`${h.prefix}w`)} WHERE fin = 1),
      u_z AS MATERIALIZED (SELECT w.k AS k, c.host AS host, ${walked("w", u.columns)}
        FROM ${sql.raw(`${u.prefix}w`)} AS w JOIN u_c AS c ON c.k = w.k
        WHERE w.fin = 1 AND ${carries(projectId, sql`w.k`, sql`c.host`, sql`c.hostFresh`)})
    UPDATE ${hosts} SET ${setClause([...assignFrom(hosts, h.columns, "z"), ...ownerAssignments])}
    FROM h_z AS z LEFT JOIN u_z AS o ON o.host = +z.k
    WHERE ${name(hosts.projectId)} = ${projectId} AND ${name(hosts.id)} = z.k AND ${name(hosts.id)} IN (SELECT k FROM h_z)`;
}

/**
 * A users part's UPDATE of the users no host carried in this batch (the hosts' statements ran
 * first; `carries` reads the same rows in both), each naming its last grant's host a carrier.
 */
function usersNotCarried(
  projectId: number,
  part: HolderWalk,
  steps: readonly Step[],
  candidates: ReadonlyMap<number, CarrierCandidate>,
): SQL {
  const keys = [...new Set(steps.map((x) => x.k))];
  const named = candidatesOf(keys, candidates);
  const current = sql`${users}.${name(users.carriers)}`;
  return sql`WITH RECURSIVE ${creditWalk(part.prefix, part.columns, storedBase(users, part.columns, storedRows(users, projectId, keys), part.source(jsonList(keys))), steps)},
      ${jsonRowsTable("u_c", CANDIDATE_FIELDS, named)},
      u_z AS MATERIALIZED (SELECT k, ${carried(part.columns)} FROM ${sql.raw(`${part.prefix}w`)} WHERE fin = 1)
    UPDATE ${users} SET ${setClause([
      ...assignFrom(users, part.columns, "z"),
      [users.carriers.name, carriersWith(projectId, sql`z.k`, sql`c.granted`, current)],
    ])}
    FROM u_z AS z JOIN u_c AS c ON c.k = +z.k
    WHERE ${name(users.projectId)} = ${projectId} AND ${name(users.id)} = z.k AND ${name(users.id)} IN (SELECT k FROM u_z)
      AND NOT coalesce(${carries(projectId, sql`z.k`, sql`c.host`, sql`c.hostFresh`)}, 0)`;
}

/**
 * The batch's credit on its holders and project row, in this order: the finished buckets (a
 * statement per part of the tables' walks, each taking the next of `queue`'s numbers; both
 * guarded statements when `history` is "guarded"), each table's stored rows, its fresh rows,
 * then (`projectRow`) the project's walk, which must come after anything that numbers itself
 * by the project's queue_seq as the batch found it, and raises it past them all: the batch's
 * other queue rows take their numbers from `queue` before this is called. The project's walk
 * also adds `batch.counts` to the holder counts, so it runs before any holder is inserted
 * (WRITE_PHASES), and the buckets are read with `batch.created` as fresh rows.
 * The buckets of rows granted on one day are read from the rows as stored, in the first
 * statement (splitByDays); only the rows granted on several days are walked for them.
 */
export function holderWalkWrites(
  projectId: number,
  passes: readonly WalkedPass[],
  queue: QueueNumbers,
  history: HistoryTarget = "guarded",
  batch: BatchHolders = NO_BATCH_HOLDERS,
  columns: readonly CreditColumn<HolderTable>[] = HOLDER_CREDIT_COLUMNS,
): { history: SQL[]; holders: SQL[]; projectRow: SQL[] } {
  const kinds = ["hosts", "users", "teams"] as const;
  const walks = kinds.map((kind) => holderWalk(projectId, kind, passes, columns));
  const userWalk = walks[1]!;
  const candidates = carrierCandidates(passes);
  const tables = walks.map(parts);
  // The finished days are read before the batch's holders phase: a holder it creates is fresh there.
  const splits = walks.map((walk, n) => splitByDays(withCreated(walk, batch.created[kinds[n]!])));
  const walkedParts = splits.map((x) => parts(x.walked));
  const statements = Math.max(1, ...walkedParts.map((t) => t.length));
  const project = projectWalk(projectId, passes, queue);
  if (project.steps.length === 0) return { history: [], holders: [], projectRow: [] };
  const unwalked = walks.flatMap((walk, n) => {
    const firstDays = splits[n]!.firstDays;
    return firstDays.length > 0 ? [finishedOnDays(projectId, walk, firstDays)] : [];
  });
  const buckets = Array.from({ length: statements }, (_, n) => {
    const walked = walkedParts.flatMap((t) => (n < t.length ? [t[n]!] : []));
    const ctes = sql.join([...walked.map((x) => wholeWalk(projectId, x)), ...(n === 0 ? [project.ctes] : [])], sql`, `);
    const finished = sql.join(
      [
        ...walked.map((x) => finishedBy(x.prefix, x.subject, sql.raw("w.k"))),
        // Nested: D1 allows 5 terms to a compound SELECT.
        ...(n === 0 && unwalked.length > 0 ? [sql`SELECT * FROM (${sql.join(unwalked, sql` UNION ALL `)})`] : []),
        ...(n === 0 ? [finishedBy("p_", "project", sql`0`)] : []),
      ],
      sql` UNION ALL `,
    );
    return finishedBucketWrites(projectId, finished, queue, history, sql`WITH RECURSIVE ${ctes}`);
  });
  return {
    history: buckets.flat(),
    // The hosts' statements first: a user they carry is then not written by the users' (owner-carriers.ts).
    holders: tables
      .flat()
      .flatMap((x) => [...storedHolderUpdate(projectId, x, userWalk, candidates), ...freshInsert(projectId, x, candidates)]),
    projectRow: project.update(batch.counts),
  };
}

/** What a batch's own statements add to its holders before the grants (grantWalkPhases). */
export interface BatchHolders {
  /** The holder count update (holder-counts.ts), or null when the batch names none. */
  readonly counts: HolderCountUpdate | null;
  /**
   * The holders its `holders` phase creates without a grant (attribution-writes.ts), each with
   * the `now` of the first pass naming it: not stored when the finished days are read.
   */
  readonly created: Readonly<Record<HolderKind, ReadonlyMap<number, number>>>;
}

export const NO_BATCH_HOLDERS: BatchHolders = { counts: null, created: { hosts: new Map(), users: new Map(), teams: new Map() } };

/**
 * The grant phases of passes decided in order (a pass batch's; a pass posted alone is a batch
 * of one; a trickle batch's grants are one pass): the finished day buckets, the holders' walks,
 * the per-app credit's queue row (app-credit-queue.ts) and the project's walk, their queue
 * numbers from one QueueNumbers (each table numbers its own rows, so the order they are taken
 * in does not matter; the project's walk raises queue_seq past them all). The holder counts
 * ride on the project's walk when the batch grants anything, else take their own statement:
 * the project's row is written once per batch either way.
 */
export function grantWalkPhases(
  projectId: number,
  passes: readonly WalkedPass[],
  batch: BatchHolders,
  history?: HistoryTarget,
): Pick<PhasedWrites, "holderCounts" | "finishedDays" | "holderCredit" | "appCreditQueue" | "projectCredit"> {
  const queue = new QueueNumbers(projectId);
  const appCreditQueue = appCreditQueueWrites(projectId, passes, queue);
  const walks = holderWalkWrites(projectId, passes, queue, history, batch);
  return {
    holderCounts: walks.projectRow.length > 0 ? [] : holderCountStatement(batch.counts),
    finishedDays: walks.history,
    holderCredit: walks.holders,
    appCreditQueue,
    projectCredit: walks.projectRow,
  };
}
