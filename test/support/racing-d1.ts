/**
 * A D1 binding (around the real local D1) whose read batches that look up `results` wait until
 * `parties` of them have arrived: every request reads before any writes, the race at its worst.
 * With `lost`, each write batch that fails on a UNIQUE key (a row another request created
 * first) is counted there.
 */
export function racingD1(real: D1Database, parties: number, lost?: { races: number }): D1Database {
  const sqlOf = new WeakMap<object, string>();
  let arrived = 0;
  let release!: () => void;
  const allArrived = new Promise<void>((resolve) => (release = resolve));
  const track = (stmt: D1PreparedStatement, sql: string): D1PreparedStatement => {
    sqlOf.set(stmt, sql);
    const bind = stmt.bind.bind(stmt);
    stmt.bind = (...values: unknown[]) => track(bind(...values), sql);
    return stmt;
  };
  return new Proxy(real, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => track(target.prepare(sql), sql);
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          if (statements.some((s) => /from "results"/i.test(sqlOf.get(s) ?? ""))) {
            if (++arrived === parties) release();
            await allArrived;
          }
          try {
            return await target.batch(statements);
          } catch (e) {
            if (lost && /UNIQUE constraint failed/i.test(String(e instanceof Error ? `${e.message} ${String(e.cause)}` : e))) lost.races++;
            throw e;
          }
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
