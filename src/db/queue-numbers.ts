/**
 * The numbers of a project's queue rows (history_queue, app_credit_queue: projects.queue_seq,
 * docs/storage.md). A write batch takes numbers above queue_seq as the batch finds it, through
 * ONE QueueNumbers: each table's n-th row of the batch (from 0) is queue_seq + 1 + n (each
 * table numbers its own rows). The batch's update of the project row comes after every
 * statement that takes one (the projectCredit phase, write-phases.ts) and raises queue_seq
 * past them all (`raise`), so no number is taken twice; one asked for after the raise throws.
 * A batch takes one number per statement of its finished buckets (holder-walks.ts) and one
 * for its per-app credit row, and raises queue_seq by one per granting pass (queueStep), or
 * past its numbers if those are more.
 */
import { type SQL, sql } from "drizzle-orm";
import { appCreditQueue, historyQueue, projects } from "./schema";
import { name } from "./sql-helpers";

type QueueTable = typeof historyQueue | typeof appCreditQueue;

/** A granting pass's raise of queue_seq (`before`: its value before the pass): past the one number a batch of one takes per table. */
export function queueStep(before: SQL): SQL {
  return sql`${before} + 1`;
}

/** The queue numbers one write batch takes, and its raise of queue_seq past them. */
export class QueueNumbers {
  readonly #taken = new Map<QueueTable, number>();
  #raised = false;

  constructor(readonly projectId: number) {}

  #take(table: QueueTable): number {
    if (this.#raised) throw new Error("a queue number taken after the batch raised queue_seq past its numbers");
    const n = this.#taken.get(table) ?? 0;
    this.#taken.set(table, n + 1);
    return n;
  }

  /** The next number of `table`'s rows, in a statement that reads the project's row itself (FROM projects). */
  next(table: QueueTable): SQL {
    return sql`${name(projects.queueSeq)} + ${sql.raw(String(1 + this.#take(table)))}`;
  }

  /** The next number of `table`'s rows, read from the project's row by a statement whose rows come from elsewhere. */
  nextOf(table: QueueTable): SQL {
    return sql`(SELECT ${this.next(table)} FROM ${projects} WHERE ${name(projects.id)} = ${this.projectId})`;
  }

  /**
   * queue_seq as the batch's update of the project row writes it: `stepped`, its value after
   * the batch's `passes` granting passes each took their queueStep, or past every number
   * taken if those are more. Takes no number after it.
   */
  raise(stepped: SQL, passes: number): SQL {
    this.#raised = true;
    const taken = Math.max(0, ...this.#taken.values());
    if (taken <= passes) return stepped;
    return sql`max(${stepped}, ${projects}.${name(projects.queueSeq)} + ${sql.raw(String(taken))})`;
  }
}
