/**
 * The part of better-sqlite3's API the benchmarks use (bench/d1-on-sqlite.ts, bench/sqlite-limit.ts).
 * better-sqlite3 is installed on first `npm run bench` only (bench/ensure-deps.mjs: it compiles
 * for about two minutes), so `npm run typecheck` cannot rely on its own declarations; these are
 * checked against the package's behaviour by the benchmark run itself.
 */
declare module "better-sqlite3" {
  namespace Database {
    interface RunResult {
      changes: number;
      lastInsertRowid: number | bigint;
    }
    interface Statement {
      /** Whether the statement returns rows (a SELECT, or a write with RETURNING). */
      readonly reader: boolean;
      run(...params: unknown[]): RunResult;
      all(...params: unknown[]): unknown[];
      /** With `true`, rows come back as arrays of values instead of objects. */
      raw(toggle?: boolean): Statement;
    }
  }
  class Database {
    constructor(filename: string);
    prepare(sql: string): Database.Statement;
    exec(sql: string): this;
    pragma(source: string): unknown;
    /** Wraps `fn` in BEGIN/COMMIT (ROLLBACK when it throws). */
    transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
    close(): this;
  }
  export default Database;
}
