/**
 * A D1 binding that fails on purpose (the only fake in these tests, around the real local D1):
 * - `atStatement: n` makes the next write batch fail at its n-th statement (0 or less: the
 *   last), by swapping that statement for one that fails inside the transaction, so the
 *   statements before it really ran and really roll back;
 * - `afterBatch` runs the next write batch, then throws as if the answer had been lost;
 * - `singleWrite` makes the next write run on its own (not in a batch) throw before it runs;
 * - `auditWrite` makes the next audit-log insert throw.
 * - `conflicts: n` makes each of the next n write batches lose a race: its last statement is
 *   swapped for an insert of a project row that exists, a real UNIQUE violation inside the
 *   transaction, as when a concurrent request inserted the same key first.
 * Audit-log inserts are left alone by the other faults (they follow the write on purpose).
 * Each fault fires once (`conflicts`: n times); reads pass through.
 */
export type Fault = { atStatement: number } | { afterBatch: true } | { singleWrite: true } | { auditWrite: true } | { conflicts: number };

const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE|WITH)\b/i;
const AUDIT = /\baudit_log\b/;
/** D1's message for a failure inside a batch, and for a lost connection. */
const LOST = "D1_ERROR: Network connection lost.";

export interface FaultyD1 {
  readonly db: D1Database;
  /** Faults that fired, and the size of the batch each hit. */
  readonly fired: { fault: Fault; statements: number }[];
}

export function faultyD1(real: D1Database, fault: Fault): FaultyD1 {
  const sqlOf = new WeakMap<object, string>();
  const fired: FaultyD1["fired"] = [];
  let armed = true;
  let conflictsLeft = "conflicts" in fault ? fault.conflicts : 0;

  const track = (stmt: D1PreparedStatement, sql: string): D1PreparedStatement => {
    sqlOf.set(stmt, sql);
    const bind = stmt.bind.bind(stmt);
    stmt.bind = (...values: unknown[]) => track(bind(...values), sql);
    const targeted = "auditWrite" in fault ? AUDIT.test(sql) : "singleWrite" in fault && WRITE.test(sql) && !AUDIT.test(sql);
    if (targeted) {
      for (const method of ["run", "all", "first", "raw"] as const) {
        const original = (stmt[method] as (...a: unknown[]) => Promise<unknown>).bind(stmt);
        Reflect.set(stmt, method, (...args: unknown[]) => {
          if (!armed) return original(...args);
          armed = false;
          fired.push({ fault, statements: 1 });
          return Promise.reject(new Error(LOST));
        });
      }
    }
    return stmt;
  };

  const db = new Proxy(real, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => track(target.prepare(sql), sql);
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          const writes = statements.some((s) => WRITE.test(sqlOf.get(s) ?? "") && !AUDIT.test(sqlOf.get(s) ?? ""));
          if (!armed || !writes || "singleWrite" in fault || "auditWrite" in fault) return target.batch(statements);
          if ("conflicts" in fault) {
            armed = --conflictsLeft > 0;
            fired.push({ fault, statements: statements.length });
            const raced = [...statements];
            raced[raced.length - 1] = target.prepare(
              "INSERT INTO projects (id, slug, name, created_at) SELECT id, slug, name, created_at FROM projects LIMIT 1",
            );
            return target.batch(raced);
          }
          armed = false;
          fired.push({ fault, statements: statements.length });
          if ("afterBatch" in fault) {
            await target.batch(statements);
            throw new Error(LOST);
          }
          const at = fault.atStatement > 0 ? Math.min(fault.atStatement, statements.length) : statements.length;
          const spoiled = [...statements];
          // Fails when it runs (no such table), inside the batch's transaction, so D1 really
          // rolls the batch back; the client sees what a connection lost there gives (a missing
          // table itself would be a bug, answered 500).
          spoiled[at - 1] = target.prepare("INSERT INTO injected_fault_no_such_table VALUES (1)");
          try {
            return await target.batch(spoiled);
          } catch {
            throw new Error(LOST);
          }
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db, fired };
}
