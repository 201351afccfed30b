/**
 * D1 use of one request or one cron job, for its log line (docs/operations.md#logs): a copy of
 * the environment whose D1 bindings add up the `meta` D1 returns with each answer. No query is
 * added or changed; the cost is a counter per statement.
 *
 * D1 returns `meta` (rows_read, rows_written) with `run()`, `all()` and `batch()`: every batch,
 * every write but one answered with `.returning()`, every select in a batch. `raw()` and
 * `first()` return none, and drizzle answers a select outside a batch with `raw()`, so those
 * statements are counted in `queriesWithoutMeta` and their rows are in neither total.
 */
import { databaseBindings } from "./project-db";

export interface D1Usage {
  rowsRead: number;
  rowsWritten: number;
  /** Statements sent (each statement of a batch counts). */
  queries: number;
  /** Of those, the ones D1 answered without meta (`raw()`, `first()`): rows not counted. */
  queriesWithoutMeta: number;
}

export function newD1Usage(): D1Usage {
  return { rowsRead: 0, rowsWritten: 0, queries: 0, queriesWithoutMeta: 0 };
}

/** The statement a metered one wraps (what the real `batch` must be given). */
const wrapped = new WeakMap<object, D1PreparedStatement>();

function add(usage: D1Usage, result: D1Result | undefined): void {
  usage.queries += 1;
  usage.rowsRead += result?.meta?.rows_read ?? 0;
  usage.rowsWritten += result?.meta?.rows_written ?? 0;
}

function meteredStatement(inner: D1PreparedStatement, usage: D1Usage): D1PreparedStatement {
  const withoutMeta = <T>(answer: Promise<T>) => {
    usage.queries += 1;
    usage.queriesWithoutMeta += 1;
    return answer;
  };
  const stmt = {
    bind: (...values: unknown[]) => meteredStatement(inner.bind(...values), usage),
    run: async () => {
      const result = await inner.run();
      add(usage, result);
      return result;
    },
    all: async () => {
      const result = await inner.all();
      add(usage, result);
      return result;
    },
    first: (column?: string) => withoutMeta(column === undefined ? inner.first() : inner.first(column)),
    raw: (options?: { columnNames?: boolean }) => withoutMeta(options?.columnNames ? inner.raw({ columnNames: true }) : inner.raw()),
  } as unknown as D1PreparedStatement;
  wrapped.set(stmt, inner);
  return stmt;
}

function meteredD1(inner: D1Database, usage: D1Usage): D1Database {
  return {
    prepare: (query: string) => meteredStatement(inner.prepare(query), usage),
    batch: async (statements: D1PreparedStatement[]) => {
      const results = await inner.batch(statements.map((s) => wrapped.get(s) ?? s));
      for (const r of results) add(usage, r);
      return results;
    },
    exec: (query: string) => {
      usage.queriesWithoutMeta += 1;
      usage.queries += 1;
      return inner.exec(query);
    },
    // Not used by the Worker; passed through unmetered rather than left out.
    withSession: (constraint?: string) => inner.withSession(constraint),
    dump: () => inner.dump(),
  } as unknown as D1Database;
}

/** `env` with each D1 binding counting into `usage`; the other bindings are the same objects. */
export function meteredEnv<E extends object>(env: E, usage: D1Usage): E {
  const copy: Record<string, unknown> = { ...(env as Record<string, unknown>) };
  for (const name of databaseBindings(env)) {
    const d1 = copy[name] as D1Database | undefined;
    if (d1 !== undefined) copy[name] = meteredD1(d1, usage);
  }
  return copy as E;
}
