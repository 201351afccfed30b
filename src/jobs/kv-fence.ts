/**
 * The KV refresh's fence, so that KV never gets a snapshot older than one already written:
 * two runs may overlap (a slow run and the next minute's), and the older one must not write
 * over the newer one's snapshots. KV has no compare-and-set, and reading every key before
 * writing it would double the run's KV operations; so the runs agree in D1 instead, one row:
 * a run claims the fence with its `now`, and checks before each group of writes that no newer
 * run has claimed it since. A superseded run stops writing and keeps its marks.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { kvRefreshFence } from "../db/schema";
import { serverNow } from "../clock";

/** A fence further ahead than this of the real clock came from a hand-run with a made-up time: ignored. */
const FUTURE_SLACK_SECONDS = 300;

/** Claims the fence for a run at `now`; false when a newer run has claimed it. */
export async function claimFence(db: Db, now: number): Promise<boolean> {
  const f = kvRefreshFence;
  const claimed = await db
    .insert(f)
    .values({ id: 1, takenAt: now })
    .onConflictDoUpdate({
      target: f.id,
      set: { takenAt: now },
      setWhere: sql`${f.takenAt} < ${now} OR ${f.takenAt} > ${serverNow() + FUTURE_SLACK_SECONDS}`,
    })
    .returning({ takenAt: f.takenAt });
  return claimed.length === 1;
}

/** True while no newer run has claimed the fence. */
export async function stillFenced(db: Db, now: number): Promise<boolean> {
  const [row] = await db.select({ takenAt: kvRefreshFence.takenAt }).from(kvRefreshFence);
  return row?.takenAt === now;
}
