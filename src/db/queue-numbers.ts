/**
 * The numbers of a project's queue rows (history_queue, app_credit_queue: projects.queue_seq,
 * docs/storage.md). A write batch reserves numbers above queue_seq as the batch finds it: the
 * n-th (from 0) is queue_seq + 1 + n, the same in both tables (each numbers its own rows).
 * The batch's update of the project row comes after every row that takes one (the
 * projectCredit phase, write-phases.ts) and raises queue_seq past them all, so no number is
 * taken twice. A pass alone reserves one number; a pass batch one per statement of its
 * finished buckets (holder-walks.ts), and raises queue_seq by at least one per granting pass,
 * as the passes posted alone would.
 */
import { type SQL, sql } from "drizzle-orm";
import { projects } from "./schema";
import { name } from "./sql-helpers";

/** The n-th number reserved (from 0), over the project's row the statement reads. */
export function reservedQueueNumber(n = 0): SQL {
  return sql`${name(projects.queueSeq)} + ${sql.raw(String(1 + n))}`;
}

/** The n-th number reserved, read from the project's row by a statement whose rows come from elsewhere. */
export function reservedQueueNumberOf(projectId: number, n = 0): SQL {
  return sql`(SELECT ${reservedQueueNumber(n)} FROM ${projects} WHERE ${name(projects.id)} = ${projectId})`;
}

/** A granting pass's raise of queue_seq (`before`: its value before the pass): past the one number a pass alone reserves. */
export function queueStep(before: SQL): SQL {
  return sql`${before} + 1`;
}

/**
 * A batch's raise: past its passes' steps (`walked`, the walk's last value) and past the
 * `reserved` numbers its statements of finished buckets took.
 */
export function batchQueueRaise(walked: SQL, reserved: number): SQL {
  return sql`max(${walked}, ${projects}.${name(projects.queueSeq)} + ${sql.raw(String(reserved))})`;
}
