/**
 * --follow reads again the seconds just before its cursor, where a transaction that stamped its
 * mod_time and committed later may have left a row (docs/bridge.md, "Live: --follow"): the rows
 * it posted there are remembered, so that only the others are posted.
 */
import { type Cursor, type ResultRow, after } from "../database/rows";

export class RereadWindow {
  private readonly posted = new Map<number, number>();

  constructor(readonly seconds: number) {}

  /** Where a round starts reading: the window before the cursor. */
  from(cursor: Cursor): Cursor {
    return { mod_time: Math.max(0, cursor.mod_time - this.seconds), id: 0 };
  }

  /**
   * Rows after the cursor, and rows before it (the window) not posted yet; `known` leaves out
   * more of those before it (posted-results.ts: a row posted, then touched, then left behind).
   */
  async *unposted(rows: AsyncIterable<ResultRow>, cursor: Cursor, known?: (row: ResultRow) => boolean): AsyncGenerator<ResultRow> {
    for await (const row of rows) if (after(row, cursor) || !(this.posted.has(row.id) || known?.(row))) yield row;
  }

  add(row: Pick<ResultRow, "id" | "mod_time">): void {
    this.posted.set(row.id, row.mod_time);
  }

  /** Forgets the rows that fell out of the window behind `cursor`. */
  prune(cursor: Cursor): void {
    for (const [id, t] of this.posted) if (t < cursor.mod_time - this.seconds) this.posted.delete(id);
  }

  get size(): number {
    return this.posted.size;
  }
}
