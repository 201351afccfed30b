/**
 * Trickle-up messages as BOINC's scheduler stores them (msg_from_host: id, create_time, hostid,
 * variety, handled, xml) and what the trickle handler reads of them: the first <runtime> of the
 * message's text, and the host's p_fpops and owner (docs/bridge.md, "Trickle credit").
 */
import type mysql from "mysql2/promise";
import { BridgeError } from "../shared/errors";

export interface TrickleRow {
  id: number;
  hostid: number;
  create_time: number;
  /** 0 until a handler (BOINC's, or the write-back) paid it. */
  handled: number;
  xml: string | null;
}

export interface TrickleHost {
  id: number;
  create_time: number;
  userid: number;
  p_fpops: number;
  host_cpid: string | null;
  owner_email: string | null;
  /** The owner's team (null: the owner is not in the database). */
  teamid: number | null;
}

/** A decimal number as C's strtod reads a whole element's text (no hex, no inf or nan). */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The runtime the handler pays: the first <runtime> element whose text is a number (an empty
 * one reads as 0), as BOINC's XML parser reads it; null when there is none. A runtime <= 0 or
 * null is not paid (BOINC marks the message handled and grants nothing).
 */
export function runtimeOf(xml: string | null): number | null {
  if (xml === null) return null;
  for (const m of xml.matchAll(/<runtime>([^<]*)<\/runtime>/g)) {
    const text = m[1]!.trim();
    if (text === "") return 0;
    if (NUMBER.test(text)) return Number(text);
  }
  return null;
}

const COLUMNS = "id, hostid, create_time, handled, xml";

/** A missing table named with its origin; anything else (a database gone: transient) as it is. */
function readError(e: unknown): unknown {
  if ((e as { code?: string }).code !== "ER_NO_SUCH_TABLE") return e;
  return new BridgeError("trickle credit: the BOINC database has no table msg_from_host (BOINC's db/schema.sql creates it)");
}

/** Read-only: the next messages of the variety after the cursor (msg_from_host.id), handled or not (the project's handler runs). */
export async function messagesAfter(pool: mysql.Pool, variety: string, after: number, limit: number): Promise<TrickleRow[]> {
  try {
    const [rows] = await pool.query(`SELECT ${COLUMNS} FROM msg_from_host WHERE variety = ? AND id > ? ORDER BY id LIMIT ?`, [
      variety,
      after,
      limit,
    ]);
    return rows as TrickleRow[];
  } catch (e) {
    throw readError(e);
  }
}

/**
 * --write-back: the first messages of the variety not handled yet, as the handler enumerates
 * them, and those after the cursor that BOINC's handler paid before it was stopped (posted, not
 * written). Two reads, each by an index (BOINC's message_handled on `handled`, the primary key),
 * merged in id order: the first `limit` of both lists are within the first `limit` of each.
 */
export async function unhandledMessages(pool: mysql.Pool, variety: string, after: number, limit: number): Promise<TrickleRow[]> {
  try {
    const [unhandled] = await pool.query(`SELECT ${COLUMNS} FROM msg_from_host WHERE handled = 0 AND variety = ? ORDER BY id LIMIT ?`, [
      variety,
      limit,
    ]);
    const [paid] = await pool.query(
      `SELECT ${COLUMNS} FROM msg_from_host WHERE id > ? AND handled <> 0 AND variety = ? ORDER BY id LIMIT ?`,
      [after, variety, limit],
    );
    return [...(unhandled as TrickleRow[]), ...(paid as TrickleRow[])].sort((a, b) => Number(a.id) - Number(b.id)).slice(0, limit);
  } catch (e) {
    throw readError(e);
  }
}

/** The hosts the messages name, with their benchmark and owner (and the owner's team). */
export async function trickleHosts(pool: mysql.Pool, ids: number[]): Promise<Map<number, TrickleHost>> {
  if (ids.length === 0) return new Map();
  const [rows] = await pool.query(
    `SELECT h.id, h.create_time, h.userid, h.p_fpops, h.host_cpid, u.email_addr AS owner_email, u.teamid
     FROM host h LEFT JOIN user u ON u.id = h.userid WHERE h.id IN (?)`,
    [ids],
  );
  return new Map(
    (rows as TrickleHost[]).map((h) => [
      Number(h.id),
      { ...h, id: Number(h.id), userid: Number(h.userid), p_fpops: Number(h.p_fpops), teamid: h.teamid === null ? null : Number(h.teamid) },
    ]),
  );
}

/**
 * The largest p_fpops of the project's hosts: what bounds the credit of a host whose own is
 * unknown (the handler pays it the 50th percentile of these). Read only when a batch has one.
 */
export async function largestFpops(pool: mysql.Pool): Promise<number> {
  try {
    const [rows] = await pool.query("SELECT MAX(p_fpops) AS largest FROM host");
    return Number((rows as { largest: unknown }[])[0]?.largest ?? 0);
  } catch (e) {
    throw readError(e);
  }
}
