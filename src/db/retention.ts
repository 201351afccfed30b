/**
 * Retention's statements: each deletes at most one chunk of rows past their window, so a run
 * stays bounded however much is due. Rows are picked in primary-key order, which for results,
 * workunits, audit rows and RPCs is roughly age order: the scan finds old rows first.
 */
import { type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { amRpcs, auditLog, projects, purgedWorkunitBlocks, purgedWorkunits, results, trickles, workunits } from "./schema";
import { name } from "./sql-helpers";

/** Raises one of a project's marks of progress to `value`, never lowering it (a late or repeated run cannot undo one). */
export function raiseProjectMark(projectId: number, column: AnySQLiteColumn, value: number): SQL {
  return sql`UPDATE ${projects} SET ${name(column)} = max(${name(column)}, ${value}) WHERE ${name(projects.id)} = ${projectId}`;
}

/** Raises a project's horizon (never lowers it): results sent before it are refused from now on. */
export function raiseHorizon(projectId: number, horizon: number): SQL {
  return raiseProjectMark(projectId, projects.purgedBefore, horizon);
}

export function purgeResults(projectId: number, cutoff: number, limit: number): SQL {
  // By key: results is a WITHOUT ROWID table (migration 0010).
  return sql`DELETE FROM ${results} WHERE ${name(results.projectId)} = ${projectId} AND ${name(results.id)} IN (SELECT ${name(results.id)} FROM ${results}
    WHERE ${name(results.projectId)} = ${projectId} AND ${name(results.decidedAt)} < ${cutoff} LIMIT ${limit})`;
}

/** The next chunk of workunits credited before `cutoff`, in id order: what purgeWorkunits deletes. */
const dueWorkunits = (projectId: number, cutoff: number, limit: number): SQL =>
  sql`SELECT ${name(workunits.id)} AS id FROM ${workunits}
    WHERE ${name(workunits.projectId)} = ${projectId} AND ${name(workunits.creditedAt)} < ${cutoff} ORDER BY ${name(workunits.id)} LIMIT ${limit}`;

/** Ids per row of purged_workunit_blocks (migration 0024 moved the old one-workunit runs by it too). */
export const PURGED_BLOCK_IDS = 4096;
/** The same as an SQL integer literal: a bound number is a REAL to D1, and id / 4096.0 is no block number. */
export const BLOCK_IDS = sql.raw(String(PURGED_BLOCK_IDS));

/** A chunk that makes more runs of consecutive ids than this is recorded by blocks instead. */
export const MAX_RUNS_PER_CHUNK = 8;

/**
 * Records the chunk purgeWorkunits is about to delete (run before it, in the same batch). Only
 * ids that were stored are recorded (an id never credited, a workunit still running, stays
 * outside), so a result refused for one is really inconsistent. Mostly consecutive ids (BOINC
 * numbers workunits in order) are recorded as runs: a run that starts right after one already
 * recorded extends it, any other is a new row. A chunk with more than MAX_RUNS_PER_CHUNK runs
 * (ids with many gaps: workunits that errored out are never credited) is recorded instead as
 * the offsets of its ids in their blocks of PURGED_BLOCK_IDS ids, merged into the block's row.
 * Cost: at most MAX_RUNS_PER_CHUNK rows written per chunk, or one per block the chunk's ids
 * fall in (a chunk of 5,000 workunits over 10,000 ids: 3 or 4), never one per workunit.
 */
export function recordPurgedWorkunits(projectId: number, cutoff: number, limit: number): SQL[] {
  const p = purgedWorkunits;
  const b = purgedWorkunitBlocks;
  const due = dueWorkunits(projectId, cutoff, limit);
  const runs = sql`runs AS (SELECT min(id) AS first, max(id) AS last FROM
      (SELECT id, id - row_number() OVER (ORDER BY id) AS run FROM (${due})) GROUP BY run)`;
  const few = sql`(SELECT count(*) FROM runs) <= ${MAX_RUNS_PER_CHUNK}`;
  const mine = sql`${name(p.projectId)} = ${projectId}`;
  const offsets = name(b.offsets);
  return [
    // New rows first (checked against the recorded runs before any is extended), then extensions.
    sql`WITH ${runs} INSERT INTO ${p} (${name(p.projectId)}, ${name(p.firstId)}, ${name(p.lastId)})
      SELECT ${projectId}, first, last FROM runs WHERE ${few} AND NOT EXISTS (SELECT 1 FROM ${p} WHERE ${mine} AND ${name(p.lastId)} = runs.first - 1)`,
    sql`WITH ${runs} UPDATE ${p} SET ${name(p.lastId)} = (SELECT last FROM runs WHERE runs.first = ${name(p.lastId)} + 1)
      WHERE ${mine} AND ${few} AND ${name(p.lastId)} + 1 IN (SELECT first FROM runs)`,
    sql`WITH ${runs}, due AS (${due}) INSERT INTO ${b} (${name(b.projectId)}, ${name(b.block)}, ${offsets})
      SELECT ${projectId}, id / ${BLOCK_IDS}, json_group_array(id % ${BLOCK_IDS}) FROM due WHERE NOT ${few} GROUP BY id / ${BLOCK_IDS}
      ON CONFLICT DO UPDATE SET ${offsets} =
        (SELECT json_group_array(value) FROM (SELECT value FROM json_each(${offsets}) UNION SELECT value FROM json_each(excluded.${offsets})))`,
  ];
}

export function purgeWorkunits(projectId: number, cutoff: number, limit: number): SQL {
  return sql`DELETE FROM ${workunits} WHERE ${name(workunits.projectId)} = ${projectId} AND ${name(workunits.id)} IN (${dueWorkunits(projectId, cutoff, limit)})`;
}

/**
 * Raises a project's trickle horizon over the next `limit` messages above it in id order, up
 * to (not including) the first one paid at or after `cutoff`: the ids at or below the horizon
 * were all paid before the cutoff. Message ids grow with time (BOINC's msg_from_host.id), so
 * the horizon follows the window; a message still inside it stops the horizon there.
 */
export function raiseTrickleHorizon(projectId: number, cutoff: number, limit: number): SQL {
  const column = name(projects.tricklesPurgedThrough);
  return sql`WITH next AS (SELECT ${name(trickles.id)} AS id, ${name(trickles.grantedAt)} AS paid FROM ${trickles}
      WHERE ${name(trickles.projectId)} = ${projectId} AND ${name(trickles.id)} > ${trickleHorizon(projectId)}
      ORDER BY ${name(trickles.id)} LIMIT ${limit})
    UPDATE ${projects} SET ${column} = max(${column},
      coalesce((SELECT min(id) FROM next WHERE paid >= ${cutoff}) - 1, (SELECT max(id) FROM next), ${column}))
    WHERE ${name(projects.id)} = ${projectId}`;
}

const trickleHorizon = (projectId: number): SQL =>
  sql`(SELECT ${name(projects.tricklesPurgedThrough)} FROM ${projects} WHERE ${name(projects.id)} = ${projectId})`;

/** Trickle rows at or below the horizon that were paid before `cutoff`, in id order. */
export function purgeTrickles(projectId: number, cutoff: number, limit: number): SQL {
  return sql`DELETE FROM ${trickles} WHERE ${name(trickles.projectId)} = ${projectId} AND ${name(trickles.id)} IN (SELECT ${name(trickles.id)} FROM ${trickles}
    WHERE ${name(trickles.projectId)} = ${projectId} AND ${name(trickles.grantedAt)} < ${cutoff}
      AND ${name(trickles.id)} <= ${trickleHorizon(projectId)}
    ORDER BY ${name(trickles.id)} LIMIT ${limit})`;
}

export function purgeAudit(cutoff: number, limit: number): SQL {
  return sql`DELETE FROM ${auditLog} WHERE ${name(auditLog.id)} IN (SELECT ${name(auditLog.id)} FROM ${auditLog}
    WHERE ${name(auditLog.at)} < ${cutoff} ORDER BY ${name(auditLog.id)} LIMIT ${limit})`;
}

/**
 * Old RPC rows, but never a host's latest: the next RPC is numbered from it, and an RPC older
 * than it is refused as out of order (so a replay of a purged RPC cannot book twice).
 */
export function purgeAmRpcs(cutoff: number, limit: number): SQL {
  return sql`DELETE FROM ${amRpcs} WHERE rowid IN (SELECT r.rowid FROM ${amRpcs} AS r
    WHERE r.${name(amRpcs.rpcTime)} < ${cutoff}
      AND r.${name(amRpcs.seq)} < (SELECT max(l.${name(amRpcs.seq)}) FROM ${amRpcs} AS l
        WHERE l.${name(amRpcs.amId)} = r.${name(amRpcs.amId)} AND l.${name(amRpcs.hostId)} = r.${name(amRpcs.hostId)})
    LIMIT ${limit})`;
}
