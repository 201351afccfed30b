/**
 * QueueNumbers (src/db/queue-numbers.ts), evaluated by D1 against a project row whose queue_seq
 * is 41: each table numbers its own rows from queue_seq + 1, a statement whose rows come from
 * elsewhere reads the same numbers through nextOf, the batch's raise of queue_seq clears every
 * number it took, and no number is handed out after the raise.
 */
import { env } from "cloudflare:workers";
import { type SQL, eq, sql } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { QueueNumbers, queueStep } from "../../src/db/queue-numbers";
import { appCreditQueue, historyQueue, projects } from "../../src/db/schema";
import { name } from "../../src/db/sql-helpers";
import { createProject } from "../support/api";
import { projectIdOf } from "../support/project-id";

const dialect = new SQLiteAsyncDialect();
const QUEUE_SEQ = 41;

/** A new project whose queue_seq is QUEUE_SEQ. */
async function projectAt41(prefix: string): Promise<number> {
  const { slug } = await createProject(prefix);
  const id = await projectIdOf(slug);
  await env.DB.prepare("UPDATE projects SET queue_seq = ? WHERE id = ?").bind(QUEUE_SEQ, id).run();
  return id;
}

/** What D1 makes of `expr` on the project's row (FROM projects, as the batch's statements that take numbers read it). */
async function onProjectRow(id: number, expr: SQL): Promise<number> {
  const q = dialect.sqlToQuery(sql`SELECT ${expr} AS v FROM ${projects} WHERE ${eq(projects.id, id)}`);
  return (await env.DB.prepare(q.sql)
    .bind(...q.params)
    .first<number>("v"))!;
}

/** What D1 makes of `expr` in a statement whose rows do not come from projects. */
async function elsewhere(expr: SQL): Promise<number> {
  const q = dialect.sqlToQuery(sql`SELECT ${expr} AS v`);
  return (await env.DB.prepare(q.sql)
    .bind(...q.params)
    .first<number>("v"))!;
}

describe("QueueNumbers", () => {
  it("numbers each table's rows of a batch from queue_seq + 1, each table on its own, read in place or through nextOf", async () => {
    const id = await projectAt41("queue-numbers");
    const queue = new QueueNumbers(id);
    // history_queue: 42, 43, 44; app_credit_queue: 42, 43 (its own count).
    expect(await onProjectRow(id, queue.next(historyQueue))).toBe(42);
    expect(await elsewhere(queue.nextOf(historyQueue))).toBe(43);
    expect(await onProjectRow(id, queue.next(appCreditQueue))).toBe(42);
    expect(await onProjectRow(id, queue.next(historyQueue))).toBe(44);
    expect(await elsewhere(queue.nextOf(appCreditQueue))).toBe(43);
  });

  it("raises queue_seq by the batch's step when its passes took no more numbers than that, else past every number taken", async () => {
    const id = await projectAt41("queue-raise");
    const seq = sql`${projects}.${name(projects.queueSeq)}`;
    // Two granting passes, each a queueStep: 41 + 1 + 1 = 43.
    const stepped = queueStep(queueStep(seq));

    // Two numbers of one table (42, 43) and one of the other (42): the step, 43, is past them all.
    const few = new QueueNumbers(id);
    few.next(historyQueue);
    few.next(historyQueue);
    few.next(appCreditQueue);
    expect(await onProjectRow(id, few.raise(stepped, 2))).toBe(43);

    // Three numbers of one table (42, 43, 44): the step would hand 44 out again, so queue_seq goes to 44.
    const many = new QueueNumbers(id);
    for (let i = 0; i < 3; i++) many.next(historyQueue);
    expect(await onProjectRow(id, many.raise(stepped, 2))).toBe(44);
  });

  it("hands out no number after the raise, which would be one the next batch takes again", async () => {
    const queue = new QueueNumbers(await projectAt41("queue-after-raise"));
    queue.next(historyQueue);
    queue.raise(sql`1`, 1);
    expect(() => queue.next(appCreditQueue)).toThrow("a queue number taken after the batch raised queue_seq past its numbers");
    expect(() => queue.nextOf(historyQueue)).toThrow("a queue number taken after the batch raised queue_seq past its numbers");
  });
});
