/**
 * Puts back `workunit.canonical_credit` where BOINC's validator wrote an older value over the
 * bridge's (docs/bridge.md, "Who else writes these columns"). When the validator handles a late
 * result of a workunit, it writes the workunit row again with the canonical_credit it read at
 * the start of that handling; if the bridge wrote the workunit's first grant in between, that
 * write is undone. It can only happen within the validator's handling of one workunit, seconds
 * after the bridge's write, so each workunit the bridge writes is checked again a little later
 * (and once more later still), and rewritten if it differs.
 */
import type mysql from "mysql2/promise";
import { creditProblem } from "./credit-bounds";
import { WRITEBACK_TABLE } from "../database/write-back-tables";

/** Seconds after the bridge's write at which a workunit is checked again. */
export const RECHECK_AFTER_SECONDS = [15, 300] as const;
/** A new run checks the workunits of this many most recent rows of the bridge's table (a run before it may have been cut short). */
const SEED_ROWS = 10_000;
const PER_QUERY = 5000;

interface Due {
  credit: number;
  /** Unix ms of the next check. */
  at: number;
  /** Checks left after that one. */
  left: number;
}

export class CanonicalRepair {
  private readonly due = new Map<number, Due>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The workunits of the most recent grants written back before this run, checked at the first step. */
  async seed(conn: mysql.Connection): Promise<void> {
    const [rows] = await conn.query(`SELECT workunit_id, credit FROM ${WRITEBACK_TABLE} ORDER BY result_id DESC LIMIT ?`, [SEED_ROWS]);
    // Newest first: a workunit keeps its most recent credit.
    for (const r of (rows as { workunit_id: number; credit: number }[]).reverse()) {
      this.due.set(Number(r.workunit_id), { credit: Number(r.credit), at: this.now(), left: 0 });
    }
  }

  /** A workunit the bridge has just written (or found written), with its credit. */
  written(workunitId: number, credit: number): void {
    const [first, ...rest] = RECHECK_AFTER_SECONDS;
    this.due.set(workunitId, { credit, at: this.now() + first * 1000, left: rest.length });
  }

  get pending(): number {
    return this.due.size;
  }

  /**
   * Checks the workunits that are due; rewrites the ones whose canonical_credit differs. Returns
   * how many it rewrote. A credit BOINC would not grant (`ceilingOfApp`; one written before the
   * bridge checked answers, and found in its table) is never put back: an admin's fix stays.
   */
  async step(conn: mysql.Connection, ceilingOfApp: (appId: number) => number = () => Infinity): Promise<number> {
    const now = this.now();
    const ids = [...this.due].filter(([, d]) => d.at <= now).map(([id]) => id);
    let repaired = 0;
    for (let i = 0; i < ids.length; i += PER_QUERY) {
      const chunk = ids.slice(i, i + PER_QUERY);
      const [rows] = await conn.query("SELECT id, appid, canonical_credit FROM workunit WHERE id IN (?)", [chunk]);
      const stored = new Map(
        (rows as { id: number; appid: number; canonical_credit: number }[]).map((r) => [
          Number(r.id),
          { credit: Number(r.canonical_credit), app: Number(r.appid) },
        ]),
      );
      for (const id of chunk) {
        const d = this.due.get(id)!;
        const row = stored.get(id);
        const value = row?.credit;
        // A purged workunit is gone; an equal one needs nothing. The condition keeps a write made meanwhile.
        if (row !== undefined && value !== d.credit && creditProblem(d.credit, ceilingOfApp(row.app)) === null) {
          const [done] = await conn.query("UPDATE workunit SET canonical_credit = ? WHERE id = ? AND canonical_credit = ?", [
            d.credit,
            id,
            value,
          ]);
          repaired += (done as mysql.ResultSetHeader).affectedRows;
        }
        if (d.left > 0) {
          const wait = RECHECK_AFTER_SECONDS[RECHECK_AFTER_SECONDS.length - d.left]!;
          this.due.set(id, { credit: d.credit, at: now + wait * 1000, left: d.left - 1 });
        } else this.due.delete(id);
      }
    }
    return repaired;
  }
}
