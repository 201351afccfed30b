/**
 * A pass's (or a pass batch's) writes to host_app_versions: each row walks its changes in
 * pass order, and only the walk's end is written, one statement per chunk of rows whatever
 * the number of changes a row takes (docs/storage.md#host-app-versions-walk-their-changes).
 * The walk is every walk's (walks.ts, as the holders' in holder-walks.ts): a recursive CTE
 * whose step finds the row's next change by its key in a MATERIALIZED table of steps, so the
 * statement is linear in its steps (docs/storage.md#walks-are-linear). A statement whose rows
 * take one change each applies it to the row without a walk. A row the pass inserts is
 * `fresh` (the snapshot did not hold it), as the holders' are.
 */
import { type SQL, getTableColumns, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { HAV_AVERAGE } from "../credit/constants";
import type { FairHostChange } from "../credit/fair-pass";
import { type HostAppVersionKey, havKey } from "../credit/host-app-version-key";
import type { HostAppVersionChange } from "../credit/pass";
import { FAIR_HOST_FIELDS, fairHostAssignments, fairHostFields, fairHostStateWrites, founderOnInsert } from "./fair-rows";
import { NEUTRAL_FIELDS, neutralAssignments, neutralFields } from "./neutral-rows";
import { hostAppVersions as h } from "./schema";
import { chunks, col, conflictRowField, insertFromJson, jsonRowsTable, name, ref, withJsonRows, zeroedRow } from "./sql-helpers";
import { MAX_STEPS_PER_STATEMENT, numberSteps, packPieces, walkCtes } from "./walks";
import { type Assignment, averageUpdate, averageVarUpdate, setClause } from "./stat-updates";

/** Creates (zeroed) the host_app_versions that do not exist yet. */
function ensureHostAppVersions(projectId: number, keys: readonly HostAppVersionKey[]): SQL[] {
  return chunks(keys).map((rows) =>
    insertFromJson(
      sql`${h}`,
      [
        [h.projectId, sql`${projectId}`],
        [h.hostId, "hostId"],
        [h.appId, "appId"],
        [h.appVersionId, "appVersionId"],
        [h.fairFounder, founderOnInsert(projectId, sql`json_extract(j.value, '$.appVersionId')`)],
      ],
      rows,
      sql`ON CONFLICT DO NOTHING`,
    ),
  );
}

/**
 * Every host_app_version write of a pass: `fresh` names the rows the pass's snapshot did not
 * hold. A fresh row with changes is inserted with its changes already applied (one row
 * written, not an insert and then an update); one without changes is inserted zeroed. If a
 * concurrent pass created the row first, the insert walks that row's values instead and
 * writes its walk's end over it (ON CONFLICT DO UPDATE): a row two passes create is no
 * conflict (docs/spec/api-contract.md#concurrency).
 */
export function hostAppVersionWrites(
  projectId: number,
  fresh: readonly HostAppVersionKey[],
  changes: readonly HostAppVersionChange[],
  fair: ReadonlyMap<string, FairHostChange> = new Map(),
): SQL[] {
  const changed = new Set(changes.map(havKey));
  return [
    ...ensureHostAppVersions(
      projectId,
      fresh.filter((k) => !changed.has(havKey(k))),
    ),
    ...hostAppVersionChangeWrites(projectId, changes, fair, new Set(fresh.map(havKey))),
  ];
}

/** A change as the fields of its JSON step (absent: no sample, no verdict). */
type ChangeFields = Record<string, unknown>;

/** One row's changes in pass order, and whether the pass inserts the row. */
interface RowChanges {
  readonly key: HostAppVersionKey;
  readonly fresh: boolean;
  readonly changes: ChangeFields[];
}

/** The part of a row's changes one statement walks; `first` if it starts at the row's first change. */
interface Piece {
  readonly row: RowChanges;
  readonly changes: readonly ChangeFields[];
  readonly first: boolean;
}

/**
 * Each result's samples and verdict, applied to its host_app_version row in pass order: the
 * row walks its changes from its stored values (or, for a fresh row, from a zeroed
 * row) and its last step is written, once. A row's fair state (absolute, computed by the pass)
 * rides in its last change. A statement walks at most MAX_STEPS_PER_STATEMENT changes, of as
 * many rows as fit; a row with more is walked in parts of that size by consecutive statements,
 * each part from the row as the one before left it.
 */
export function hostAppVersionChangeWrites(
  projectId: number,
  changes: readonly HostAppVersionChange[],
  fair: ReadonlyMap<string, FairHostChange> = new Map(),
  fresh: ReadonlySet<string> = new Set(),
): SQL[] {
  const rows = new Map<string, RowChanges>();
  for (const c of changes) {
    const key = havKey(c);
    let row = rows.get(key);
    if (!row) {
      row = { key: { hostId: c.hostId, appId: c.appId, appVersionId: c.appVersionId }, fresh: fresh.has(key), changes: [] };
      rows.set(key, row);
    }
    row.changes.push({
      pfc: c.samples.pfc,
      et: c.samples.et,
      // A negative turnaround is not a sample (AVERAGE ignores it).
      turnaround: c.samples.turnaround !== undefined && c.samples.turnaround >= 0 ? c.samples.turnaround : undefined,
      cv: c.consecutiveValid,
      ...neutralFields(c),
    });
  }
  const unmerged = new Map<string, FairHostChange>();
  for (const [key, change] of fair) {
    const row = rows.get(key);
    if (row) Object.assign(row.changes.at(-1)!, { fair: 1, ...fairHostFields(change.state) });
    else unmerged.set(key, change);
  }
  // The fresh rows first, so that few statements hold both inserts and updates.
  const ordered = [...rows.values()].sort((a, b) => Number(b.fresh) - Number(a.fresh));
  const statements = packPieces(cut(ordered), (piece) => piece.changes.length);
  return [...statements.flatMap((part) => partWrites(projectId, part)), ...fairHostStateWrites(projectId, unmerged)];
}

/**
 * The rows' changes as pieces of at most MAX_STEPS_PER_STATEMENT (packPieces then puts each
 * row's changes in one statement where they fit): a longer row is cut into pieces of exactly
 * that many, each then a statement of its own, and a last piece, so that its pieces run in order.
 */
function cut(rows: readonly RowChanges[]): Piece[] {
  return rows.flatMap((row) =>
    Array.from({ length: Math.ceil(row.changes.length / MAX_STEPS_PER_STATEMENT) }, (_, n) => ({
      row,
      changes: row.changes.slice(n * MAX_STEPS_PER_STATEMENT, (n + 1) * MAX_STEPS_PER_STATEMENT),
      first: n === 0,
    })),
  );
}

/**
 * A statement's pieces: the fresh rows are inserted, the others (and later pieces of fresh
 * rows) updated. Where every row takes one change (a pass's usual shape: each host
 * once), the change is applied to the row itself, with no walk: the same assignments over the
 * row's columns (5,000 new rows: about two thirds of the walk's time).
 */
function partWrites(projectId: number, pieces: readonly Piece[]): SQL[] {
  const inserted = pieces.filter((p) => p.first && p.row.fresh);
  const updated = pieces.filter((p) => !(p.first && p.row.fresh));
  const single = (group: readonly Piece[]) => group.every((p) => p.changes.length === 1);
  return [
    ...(inserted.length > 0 ? [single(inserted) ? changeInsert(projectId, inserted) : walkInsert(projectId, inserted)] : []),
    ...(updated.length > 0 ? [single(updated) ? changeUpdate(projectId, updated) : walkUpdate(projectId, updated)] : []),
  ];
}

const havStats = {
  pfc: { n: h.pfcN.name, avg: h.pfcAvg.name },
  et: { n: h.etN.name, avg: h.etAvg.name, var: h.etVar.name, q: h.etQ.name },
  turnaround: { n: h.turnaroundN.name, avg: h.turnaroundAvg.name, var: h.turnaroundVar.name, q: h.turnaroundQ.name },
};

const KEY_FIELDS = ["hostId", "appId", "appVersionId"];
/** A change's fields (ChangeFields), as its step and its JSON row bind them. */
const CHANGE_FIELDS = ["pfc", "et", "turnaround", "cv", "fair", ...FAIR_HOST_FIELDS, ...NEUTRAL_FIELDS];

/** A step's new value of each column, from the walk's previous row `w` and the change `s`. */
const STEP = changeAssignments(
  (f) => ref("s", f),
  (c) => ref("w", c),
);
/** The columns a change assigns: the walk carries each, named as the column. */
const WALKED = STEP.map(([c]) => c);
const REAL_COLUMNS = new Set(
  Object.values(getTableColumns(h))
    .filter((c) => c.columnType === "SQLiteReal")
    .map((c) => c.name),
);
/** As the column would store it (REAL affinity), so a later step computes on what a stored row would hold. */
const stored = ([c, v]: Assignment): SQL => (REAL_COLUMNS.has(c) ? sql`CAST(${v} AS REAL)` : v);

const list = (alias: string, fields: readonly string[]) =>
  sql.join(
    fields.map((f) => ref(alias, f)),
    sql`, `,
  );
const columns = (fields: readonly string[]) =>
  sql.join(
    fields.map((f) => col(f)),
    sql`, `,
  );
/** The host_app_versions row (as `table`, or the statement's target) whose key is the one of row `alias`'s fields. */
const sameKey = (projectId: number, alias: string, table?: string) => {
  const column = (c: AnySQLiteColumn) => (table ? sql`${sql.raw(table)}.${name(c)}` : name(c));
  return sql`${column(h.projectId)} = ${projectId} AND ${column(h.hostId)} = ${ref(alias, "hostId")}
    AND ${column(h.appId)} = ${ref(alias, "appId")} AND ${column(h.appVersionId)} = ${ref(alias, "appVersionId")}`;
};

/**
 * `r` (each piece's row `k` and its key), then the walk of walks.ts: `s` (the changes), `b`
 * (`base`: each row's values before its first step) and `w` (step 0 is the base, each next
 * row a change's assignments over the previous, the key carried along).
 */
function havWalk(pieces: readonly Piece[], base: SQL): SQL {
  const keys = pieces.map((p, k) => ({ k, ...p.row.key }));
  const steps = numberSteps(pieces.flatMap((p, k) => p.changes.map((c) => ({ ...c, k }))));
  return sql`WITH RECURSIVE ${jsonRowsTable("r", ["k", ...KEY_FIELDS], keys)}, ${walkCtes({
    prefix: "",
    steps,
    fields: CHANGE_FIELDS,
    base,
    carried: [...KEY_FIELDS, ...WALKED],
    next: [...KEY_FIELDS.map((f) => ref("w", f)), ...STEP.map(stored)],
  })}`;
}

/** The stored rows walked from their values, each row's last step written: one UPDATE. */
function walkUpdate(projectId: number, pieces: readonly Piece[]): SQL {
  const base = sql`SELECT r.k AS k, ${list("r", KEY_FIELDS)}, ${list("o", WALKED)} FROM r JOIN ${h} AS o ON ${sameKey(projectId, "r", "o")}`;
  // The last steps materialized once, each row then found by its key (a subquery per row would walk again).
  return sql`${havWalk(pieces, base)},
      l AS MATERIALIZED (SELECT ${list("w", KEY_FIELDS)}, ${list("w", WALKED)} FROM w WHERE w.fin = 1)
    UPDATE ${h} SET ${setClause(WALKED.map((c) => [c, ref("l", c)]))}
    FROM l WHERE ${sameKey(projectId, "l")}`;
}

/**
 * The fresh rows, walked from a zeroed row (or, for a row a concurrent request
 * created since the pass's read, from that row as stored) and inserted at their walk's end:
 * one row written per row. Over a row created meanwhile the insert writes the end of the walk
 * that started from it (ON CONFLICT DO UPDATE).
 */
function walkInsert(projectId: number, pieces: readonly Piece[]): SQL {
  const values = sql.join(
    WALKED.map((c) => sql`CASE WHEN o.${name(h.hostId)} IS NULL THEN ${ref("z", c)} ELSE ${ref("o", c)} END AS ${col(c)}`),
    sql`, `,
  );
  const base = sql`SELECT r.k AS k, ${list("r", KEY_FIELDS)}, ${values}
    FROM r JOIN ${zeroedRow(h, WALKED)} LEFT JOIN ${h} AS o ON ${sameKey(projectId, "r", "o")}`;
  return sql`${havWalk(pieces, base)}
    INSERT INTO ${h} (${name(h.projectId)}, ${name(h.hostId)}, ${name(h.appId)}, ${name(h.appVersionId)}, ${name(h.fairFounder)}, ${columns(WALKED)})
    SELECT ${projectId}, ${list("w", KEY_FIELDS)}, ${founderOnInsert(projectId, ref("w", "appVersionId"))}, ${list("w", WALKED)} FROM w WHERE w.fin = 1
    ON CONFLICT DO UPDATE SET ${setClause(WALKED.map((c) => [c, sql`excluded.${col(c)}`]))}`;
}

/** Each row's one change as a JSON row: the row's key and the change's fields. */
const CHANGE_ROW_FIELDS = [...KEY_FIELDS, ...CHANGE_FIELDS];
const changeRows = (pieces: readonly Piece[]) => pieces.map((p) => ({ ...p.row.key, ...p.changes[0] }));
/** A change's assignments over the row's own columns (`c` the change). */
const ONE_CHANGE = changeAssignments((f) => ref("c", f), col);

/** Stored rows that take one change each: one UPDATE, each row's assignments over its values. */
function changeUpdate(projectId: number, pieces: readonly Piece[]): SQL {
  return sql`${withJsonRows("c", CHANGE_ROW_FIELDS, changeRows(pieces))}
    UPDATE ${h} SET ${setClause(ONE_CHANGE)} FROM c WHERE ${sameKey(projectId, "c")}`;
}

/**
 * Fresh rows that take one change each: the assignments evaluated on a zeroed row, one row
 * written. A row created since the pass's read (a concurrent pass of the same host) takes the
 * change as the update above would give it, its fields found by its key.
 */
function changeInsert(projectId: number, pieces: readonly Piece[]): SQL {
  const ofExcluded = conflictRowField("c", [
    ["hostId", h.hostId],
    ["appId", h.appId],
    ["appVersionId", h.appVersionId],
  ]);
  return sql`${withJsonRows("c", CHANGE_ROW_FIELDS, changeRows(pieces))}
    INSERT INTO ${h} (${name(h.projectId)}, ${name(h.hostId)}, ${name(h.appId)}, ${name(h.appVersionId)}, ${name(h.fairFounder)}, ${columns(WALKED)})
    SELECT ${projectId}, ${list("c", KEY_FIELDS)}, ${founderOnInsert(projectId, ref("c", "appVersionId"))}, ${sql.join(
      ONE_CHANGE.map(([, v]) => v),
      sql`, `,
    )} FROM c, ${zeroedRow(h, WALKED)} WHERE true ON CONFLICT DO UPDATE SET ${setClause(changeAssignments(ofExcluded, col))}`;
}

/** `column = CASE WHEN present THEN value ELSE current END`: a sample only some changes have. */
function whenPresent(present: SQL, values: Record<string, SQL>, current: (column: string) => SQL): Assignment[] {
  return Object.entries(values).map(([column, value]) => [column, sql`CASE WHEN ${present} THEN ${value} ELSE ${current(column)} END`]);
}

/** Renames the twin's fields to the columns they are stored in. */
function assign<K extends string>(names: Record<K, string>, values: Record<K, SQL>): Record<string, SQL> {
  return Object.fromEntries(Object.entries(names).map(([k, column]) => [column as string, values[k as K]]));
}

/**
 * A change's assignments to its host_app_version row: `s(field)` reads the change's fields,
 * `current(column)` the row's value before the change.
 */
function changeAssignments(s: (field: string) => SQL, current: (column: string) => SQL): Assignment[] {
  /** The current values of an average, keyed like its fields. */
  const refs = <K extends string>(names: Record<K, string>): Record<K, SQL> =>
    Object.fromEntries(Object.entries(names).map(([k, v]) => [k, current(v as string)])) as Record<K, SQL>;
  const cv = current(h.consecutiveValid.name);
  return [
    ...whenPresent(
      sql`${s("pfc")} IS NOT NULL`,
      assign(havStats.pfc, averageUpdate.sql(refs(havStats.pfc), s("pfc"), HAV_AVERAGE)),
      current,
    ),
    ...whenPresent(
      sql`${s("et")} IS NOT NULL`,
      assign(havStats.et, averageVarUpdate.sql(refs(havStats.et), s("et"), HAV_AVERAGE)),
      current,
    ),
    ...whenPresent(
      sql`${s("turnaround")} IS NOT NULL`,
      assign(havStats.turnaround, averageVarUpdate.sql(refs(havStats.turnaround), s("turnaround"), HAV_AVERAGE)),
      current,
    ),
    [h.consecutiveValid.name, sql`CASE ${s("cv")} WHEN 'increment' THEN ${cv} + 1 WHEN 'reset' THEN 0 ELSE ${cv} END`],
    ...whenPresent(sql`${s("fair")} IS NOT NULL`, fairHostAssignments(s), current),
    // Keeps the row's values when it has no sample (np NULL) by itself.
    ...Object.entries(neutralAssignments(s, current)),
  ];
}
