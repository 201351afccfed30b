/**
 * A whole board ranked, for the pages below the top ones (src/jobs/leaderboard-pages.ts):
 * one scan in primary-key order keeps only each holder's id and two keys in typed arrays
 * (24 bytes a holder, plus 4 per order sorted: 14 MB for 500,000 hosts), sorts them, and a
 * page's entries are then read by id (about 3 rows read per entry: the id list, the lookup).
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { holderReadSources } from "../db/holder-reads";
import { scanHolders } from "./holder-scan";
import type { HolderKind, LeaderboardOrder } from "./keys";
import { type LeaderboardPage, compareKeys, entryColumns, entryOf } from "./leaderboard";
import { SNAPSHOT_LIMITS } from "./limits";

/** A growable column of numbers. */
class Column {
  values = new Float64Array(1024);
  push(n: number, at: number): void {
    if (at === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[at] = n;
  }
}

export class Ranking {
  private readonly orders = new Map<LeaderboardOrder, Uint32Array>();

  constructor(
    readonly size: number,
    private readonly ids: Float64Array,
    private readonly keys: Record<LeaderboardOrder, Float64Array>,
  ) {}

  /** Ids in board order, positions `from` (0-based) up to `to`. */
  idsAt(by: LeaderboardOrder, from: number, to: number): number[] {
    let order = this.orders.get(by);
    if (!order) {
      const key = this.keys[by];
      order = new Uint32Array(this.size).map((_, i) => i);
      order.sort((a, b) => compareKeys(key[a]!, this.ids[a]!, key[b]!, this.ids[b]!));
      this.orders.set(by, order);
    }
    return Array.from(order.subarray(from, Math.min(to, this.size)), (i) => this.ids[i]!);
  }
}

/** Ranks a board from one scan (rows read: the board's size). */
export async function rankBoard(db: Db, projectId: number, kind: HolderKind): Promise<Ranking> {
  const [ids, totals, racRanks] = [new Column(), new Column(), new Column()];
  let n = 0;
  for await (const chunk of scanHolders(db, projectId, kind)) {
    for (const row of chunk) {
      ids.push(row.id, n);
      totals.push(row.total, n);
      racRanks.push(row.racRank!, n);
      n++;
    }
  }
  return new Ranking(n, ids.values, { total_credit: totals.values, expavg_credit: racRanks.values });
}

/**
 * Page `page` of a ranked board. Its entries are read by id just after the ranking, so a holder
 * credited in between shows its newer figures at the place the ranking gave it.
 */
export async function loadRankedPage(
  db: Db,
  projectId: number,
  kind: HolderKind,
  ranking: Ranking,
  by: LeaderboardOrder,
  page: number,
): Promise<LeaderboardPage> {
  const size = SNAPSHOT_LIMITS.leaderboardPageSize;
  const ids = ranking.idsAt(by, page * size, (page + 1) * size);
  const t = holderReadSources[kind];
  const rows = await db
    .select(entryColumns(kind))
    .from(t)
    .where(and(eq(t.projectId, projectId), sql`${t.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const entries = ids.flatMap((id, i) => {
    const row = byId.get(id);
    return row ? [entryOf(row, page * size + i + 1, by)] : [];
  });
  return { total: ranking.size, entries };
}
