/**
 * --write-back of trickle credit (docs/spec/write-back.md, "Trickle credit"): one transaction per
 * batch the service answered writes each paid message's credit into its host, the host's owner
 * and the owner's team as BOINC's grant_credit(host, now - 86400, credit) does, and marks every
 * message of the batch handled as BOINC's trickle handler does. The mark is the record: a message
 * is read again only while it is not handled, so nothing is written twice, whenever a run is killed.
 */
import type mysql from "mysql2/promise";
import { SECONDS_PER_DAY } from "../../src/credit/constants";
import { BridgeError } from "../shared/errors";
import { average, holderStatements, lockHolders, type WriteBack } from "./write-back";
import { planGrants } from "./write-back-plan";
import { TRICKLE_TABLES, refuseMissingPrivileges } from "./write-back-privileges";

/** Before the first batch: the account may lock and mark msg_from_host (docs/bridge.md, "Trickle credit"), or the run refuses, naming the GRANT. */
export async function refuseTrickleWriteBack(wb: WriteBack): Promise<void> {
  await refuseMissingPrivileges(wb.connection, false, TRICKLE_TABLES);
}

export interface TrickleWrite {
  /** Every message of the batch, paid or not (a message the handler cannot pay is handled too). */
  ids: number[];
  /** What the service paid, in message id order. */
  paid: { id: number; host_id: number; credit: number }[];
  /** When the service paid them (its answer's now): BOINC's dtime() of the handler's pass. */
  now: number;
}

export interface TrickleWritten {
  /** Messages whose credit this batch wrote. */
  written: number;
  /** Messages gone from msg_from_host since they were read: neither written nor marked. */
  gone: number;
  /** A host, user or team row missing: its share is not written (as grant_credit skips it). */
  missing: string[];
}

/** The batch's messages under row locks: the ones still there, refused if another handler marked one meanwhile. */
async function lockMessages(conn: mysql.Connection, ids: number[]): Promise<Set<number>> {
  const [rows] = await conn.query("SELECT id, handled FROM msg_from_host WHERE id IN (?) FOR UPDATE", [ids]);
  const locked = rows as { id: number; handled: number }[];
  const marked = locked.filter((r) => Number(r.handled) !== 0).map((r) => Number(r.id));
  if (marked.length > 0) {
    throw new BridgeError(
      `--write-back: trickle messages ${marked.slice(0, 5).join(", ")} were marked handled by someone else after this run read them: the project's trickle_credit daemon still runs. Stop it (bin/stop, or remove it from config.xml's <daemons>; docs/bridge.md, "Trickle credit"); nothing of this batch was written, and BOINC's handler has paid those`,
    );
  }
  return new Set(locked.map((r) => Number(r.id)));
}

/** Writes one answered batch, exactly once (through the write-back's connection and its retries). */
export async function writeTrickles(wb: WriteBack, batch: TrickleWrite): Promise<TrickleWritten> {
  if (batch.ids.length === 0) return { written: 0, gone: 0, missing: [] };
  return wb.transact(`${batch.ids.length} trickle messages`, async (conn) => {
    await conn.query("START TRANSACTION");
    const present = await lockMessages(conn, batch.ids);
    const grants = batch.paid
      .filter((p) => present.has(p.id))
      .map((p) => ({
        result_id: p.id,
        host_id: p.host_id,
        user_id: 0,
        team_id: 0,
        app_id: 0,
        // grant_credit(host, dtime() - 86400, credit): the work is taken to have started a day before.
        sent_time: batch.now - SECONDS_PER_DAY,
        credit: p.credit,
        time: batch.now,
      }));
    const holders = await lockHolders(
      conn,
      grants.map((g) => g.host_id),
    );
    // BOINC's trickle handler books no per-app credit (credit_user, credit_team).
    const plan = planGrants(grants, { ...holders, creditUser: new Map(), creditTeam: new Map(), creditByApp: false }, average);
    const statements = [...holderStatements(plan)];
    if (present.size > 0) statements.push(conn.format("UPDATE msg_from_host SET handled = 1 WHERE id IN (?)", [[...present]]));
    if (statements.length > 0) await conn.query(statements.join(";\n"));
    await wb.beforeCommit();
    await conn.query("COMMIT");
    return {
      written: grants.length,
      gone: batch.ids.length - present.size,
      missing: plan.missing.map((m) => m.replace("(result ", "(trickle message ")),
    };
  });
}
