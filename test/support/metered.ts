/**
 * Bindings that count what a request costs, around the real local D1 and KV: rows read (D1's
 * own `meta.rows_read` of every statement) and KV writes. `raw()` is answered from `all()`
 * (the only form with meta), turned into arrays the way drizzle turns batch results.
 */
export interface Meter {
  rowsRead: number;
  kvWrites: number;
}

export function meteredD1(real: D1Database, meter: Meter): D1Database {
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...values: unknown[]) => wrap(target.bind(...values));
        if (prop === "all" || prop === "run") {
          return async () => {
            const res = await target.all();
            meter.rowsRead += res.meta.rows_read;
            return res;
          };
        }
        if (prop === "first") {
          return async (column?: string) => {
            const res = await target.all<Record<string, unknown>>();
            meter.rowsRead += res.meta.rows_read;
            const row = res.results[0] ?? null;
            return column === undefined || row === null ? row : row[column];
          };
        }
        if (prop === "raw") {
          return async () => {
            const res = await target.all<Record<string, unknown>>();
            meter.rowsRead += res.meta.rows_read;
            return res.results.map((row) => Object.values(row));
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    unwrapped.set(proxy, stmt);
    return proxy;
  };
  return new Proxy(real, {
    get(target, prop) {
      if (prop === "prepare") return (query: string) => wrap(target.prepare(query));
      if (prop === "batch") {
        return async (stmts: D1PreparedStatement[]) => {
          const results = await target.batch(stmts.map((s) => unwrapped.get(s) ?? s));
          for (const r of results) meter.rowsRead += r.meta.rows_read;
          return results;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The real statement behind each wrapper, for batch (D1 refuses a Proxy). */
const unwrapped = new WeakMap<object, D1PreparedStatement>();

export function meteredKv(real: KVNamespace, meter: Meter): KVNamespace {
  return new Proxy(real, {
    get(target, prop) {
      if (prop === "put" || prop === "delete") {
        return (...args: unknown[]) => {
          meter.kvWrites++;
          return (target[prop] as (...a: unknown[]) => Promise<unknown>)(...args);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
