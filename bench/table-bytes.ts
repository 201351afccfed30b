/**
 * Bytes stored per table, read from the D1 database files wrangler's local D1 keeps under its
 * persist directory. D1 refuses dbstat and page-count pragmas to a Worker, so the files are
 * opened beside it (read-only, WAL included) with Node's SQLite, whose dbstat virtual table
 * gives every b-tree's pages: a table's bytes are its own b-tree's pages plus its indexes'
 * (the pages a database's size is made of; the free list, which no table owns, is left out).
 * Summed over every D1 database file, so a project whose rows live in several databases is
 * counted whole.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

function databaseFiles(persist: string): string[] {
  const dir = join(persist, "d1", "miniflare-D1DatabaseObject");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite")
    .map((f) => join(dir, f));
}

/** Bytes per table (indexes included), over every D1 database under `persist`. */
export function tableBytes(persist: string): Map<string, number> {
  const bytes = new Map<string, number>();
  for (const file of databaseFiles(persist)) {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const rows = db
        .prepare(
          `SELECT coalesce(m.tbl_name, s.name) AS tbl, sum(s.pgsize) AS bytes
           FROM dbstat AS s LEFT JOIN sqlite_master AS m ON m.name = s.name GROUP BY tbl`,
        )
        .all() as { tbl: string; bytes: number }[];
      for (const r of rows) bytes.set(r.tbl, (bytes.get(r.tbl) ?? 0) + r.bytes);
    } finally {
      db.close();
    }
  }
  return bytes;
}

/** Growth per table from `before` to `after`, divided by `per`; tables that did not grow are left out. */
export function growthPer(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, per: number): Record<string, number> {
  return Object.fromEntries(
    [...after]
      .map(([t, b]) => [t, (b - (before.get(t) ?? 0)) / per] as const)
      .filter(([, b]) => b > 0)
      .sort((a, b) => b[1] - a[1]),
  );
}
