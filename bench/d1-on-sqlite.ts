/**
 * A D1Database over better-sqlite3, for the benchmarks only: it lets the Worker's own pass
 * code (snapshot read, engine, write batch) run in Node on plain SQLite, so the "storage
 * limit" does exactly the same reads and writes. It counts statements, and times the write
 * batches (one transaction each, like D1's batch).
 */
import Database from "better-sqlite3";
import { migrationStatements } from "./migrations";

type Row = Record<string, unknown>;

export interface SqliteStats {
  statements: number;
  readBatches: number;
  writeBatches: number;
  /** Milliseconds inside write transactions. */
  writeMs: number;
  /** Milliseconds inside read-only batches and single reads. */
  readMs: number;
}

export function openSqlite(path: string, migrationsDir: string) {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  for (const stmt of migrationStatements(migrationsDir)) db.exec(stmt);
  const stats: SqliteStats = { statements: 0, readBatches: 0, writeBatches: 0, writeMs: 0, readMs: 0 };
  const cache = new Map<string, Database.Statement>();
  const prepared = (sql: string) => {
    let s = cache.get(sql);
    if (!s) cache.set(sql, (s = db.prepare(sql)));
    return s;
  };
  // D1 binds booleans as 1/0; better-sqlite3 refuses them.
  const params = (values: unknown[]) => values.map((v) => (typeof v === "boolean" ? (v ? 1 : 0) : v));

  class Statement {
    constructor(
      readonly sql: string,
      readonly values: unknown[] = [],
    ) {}
    bind(...values: unknown[]) {
      return new Statement(this.sql, values);
    }
    exec(): { results: Row[] } {
      stats.statements++;
      const s = prepared(this.sql);
      if (s.reader) return { results: s.all(...params(this.values)) as Row[] };
      s.run(...params(this.values));
      return { results: [] };
    }
    async all() {
      const t = performance.now();
      const r = this.exec();
      stats.readMs += performance.now() - t;
      return { ...r, success: true, meta: {} };
    }
    async run() {
      return this.all();
    }
    async raw() {
      const s = prepared(this.sql);
      stats.statements++;
      return s.reader ? (s.raw(true).all(...params(this.values)) as unknown[][]) : (s.run(...params(this.values)), []);
    }
    async first(column?: string) {
      const [row] = (await this.all()).results;
      return row === undefined ? null : column ? row[column] : row;
    }
  }

  const d1 = {
    prepare: (sql: string) => new Statement(sql),
    async batch(statements: Statement[]) {
      const writes = statements.some((s) => !prepared(s.sql).reader);
      const t = performance.now();
      const results = db.transaction(() => statements.map((s) => ({ ...s.exec(), success: true, meta: {} })))();
      const ms = performance.now() - t;
      if (writes) {
        stats.writeBatches++;
        stats.writeMs += ms;
      } else {
        stats.readBatches++;
        stats.readMs += ms;
      }
      return results;
    },
    async exec(sql: string) {
      db.exec(sql);
      return { count: 1, duration: 0 };
    },
  };
  return { d1: d1 as unknown as D1Database, stats, close: () => db.close(), raw: db };
}
