/**
 * Retention's statements: each deletes at most one chunk of rows past their window, so a run
 * stays bounded however much is due. Rows are picked in primary-key order, which for results,
 * workunits, audit rows and RPCs is roughly age order: the scan finds old rows first.
 */
import { type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { amRpcs, auditLog, projects, results, trickles, workunits } from "./schema";
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

export function purgeWorkunits(projectId: number, cutoff: number, limit: number): SQL {
  return sql`DELETE FROM ${workunits} WHERE ${name(workunits.projectId)} = ${projectId} AND ${name(workunits.id)} IN (SELECT ${name(workunits.id)} FROM ${workunits}
    WHERE ${name(workunits.projectId)} = ${projectId} AND ${name(workunits.creditedAt)} < ${cutoff} LIMIT ${limit})`;
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
