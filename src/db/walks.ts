/**
 * What every recursive walk of a write batch shares (docs/storage.md#walks-are-linear): the
 * credit walks of holders, the project and app versions (credit-walks.ts, holder-walks.ts,
 * version-writes.ts), the host_app_versions' changes (host-app-version-writes.ts). Each
 * row `k` walks its steps in order, step `i` (from 1) from the row step i − 1 left, `fin`
 * marking its last; the steps are packed into statements of at most MAX_STEPS_PER_STATEMENT.
 */
import { type SQL, sql } from "drizzle-orm";
import { jsonRowsTable } from "./sql-helpers";

/** Steps of a recursive walk in one statement at most: each JSON document bound stays far below D1's 1 MB for a value. */
export const MAX_STEPS_PER_STATEMENT = 500;

/** A step's place in its row's walk. */
export interface Numbered {
  readonly k: number;
  readonly i: number;
  fin: 0 | 1;
}

/** Numbers each row's steps in the order given: `i` from 1, `fin` 1 on the row's last. */
export function numberSteps<S extends { readonly k: number }>(steps: readonly S[]): (S & Numbered)[] {
  const taken = new Map<number, number>();
  const numbered = steps.map((s) => {
    const i = (taken.get(s.k) ?? 0) + 1;
    taken.set(s.k, i);
    return { ...s, i, fin: 0 as 0 | 1 };
  });
  for (const s of numbered) if (s.i === taken.get(s.k)) s.fin = 1;
  return numbered;
}

/**
 * Pieces of walks (each some rows' steps, `size` of them) packed into statements in order:
 * a statement takes pieces while their steps stay within MAX_STEPS_PER_STATEMENT, and a piece
 * larger than that has a statement of its own.
 */
export function packPieces<P>(pieces: readonly P[], size: (piece: P) => number): P[][] {
  const out: P[][] = [];
  let current: P[] = [];
  let steps = 0;
  for (const piece of pieces) {
    const n = size(piece);
    if (current.length > 0 && steps + n > MAX_STEPS_PER_STATEMENT) {
      out.push(current);
      current = [];
      steps = 0;
    }
    current.push(piece);
    steps += n;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** A walk as walkCtes writes it. */
export interface Walk {
  /** Names its CTEs `${prefix}s`, `${prefix}b`, `${prefix}w`: several walks may share a statement. */
  readonly prefix: string;
  /** The steps (numberSteps) and the fields of each the statement binds, besides k, i and fin. */
  readonly steps: readonly Numbered[];
  readonly fields: readonly string[];
  /** Each row's `k` and `carried` values before its first step. */
  readonly base: SQL;
  /** The values the walk carries from step to step, named as in `base`. */
  readonly carried: readonly string[];
  /** Each carried value after a step, from the walk's previous row `w` and the step `s`. */
  readonly next: readonly SQL[];
}

/**
 * A walk's CTEs, without WITH RECURSIVE: `${prefix}s` (the steps, MATERIALIZED: SQLite indexes
 * them, so each step finds the next by equality), `${prefix}b` (the base) and `${prefix}w`
 * (the walk: step 0 is the base, each next row `next` over the row before). `+w.k`: a base
 * read from a table gives `k` INTEGER affinity, which the steps' JSON `k` lacks, and SQLite
 * then indexed the steps by `i` alone: each step read every step with its `i` (at passes of
 * 1000, about 270 D1 rows read per result on users alone); the unary plus drops the affinity,
 * so the index is on (k, i) and each step reads one.
 */
export function walkCtes(walk: Walk): SQL {
  const [s, b, w] = ["s", "b", "w"].map((x) => sql.raw(`${walk.prefix}${x}`));
  const carried = sql.join(
    walk.carried.map((c) => sql.identifier(c)),
    sql`, `,
  );
  return sql`${jsonRowsTable(`${walk.prefix}s`, ["k", "i", "fin", ...walk.fields], walk.steps)},
    ${b} AS (${walk.base}),
    ${w}(k, i, fin, ${carried}) AS (
      SELECT k, 0, 0, ${carried} FROM ${b}
      UNION ALL
      SELECT w.k, s.i, s.fin, ${sql.join([...walk.next], sql`, `)}
      FROM ${w} AS w JOIN ${s} AS s ON s.k = +w.k AND s.i = w.i + 1)`;
}
