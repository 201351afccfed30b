/**
 * BOINC's update_stats as the soak runs it: users, then hosts, then teams, each row with a
 * recent average above 0.1 read (READ UNCOMMITTED, as update_stats sets its session) and written
 * back absolutely, decayed to the run's start with the 7-day half-life and no credit added
 * (BOINC's update_average, test/bridge/write-back-check.ts), in update_stats' `%f` format. Like
 * update_stats it takes no lock between its read of a row and its write, so a grant the bridge
 * commits in between is overwritten. The soak measures that without changing the write: the
 * same UPDATE keeps the row's values as they were just before it (user variables), and a row
 * that had changed since the read is recorded with the recent average the write took away.
 * update_stats' --min_age is a day by default (it rewrites only rows no grant moved for a day);
 * the soak uses 0, so every run rewrites every row while the bridge is granting to them.
 */
import { boincUpdateAverage } from "../../test/bridge/write-back-check";
import type { DaemonDb } from "./soak-daemon-db";
import type { DaemonCounts, SoakRecord } from "./soak-records";

const TABLES = ["user", "host", "team"] as const;

/** A recent average decayed to `now` (no credit), as update_stats computes it. */
const decayed = (avg: number, time: number, now: number) => boincUpdateAverage(now, 0, 0, avg, time)[0];

export async function updateStats(db: DaemonDb, minAgeS: number, counts: DaemonCounts, record: (r: SoakRecord) => void): Promise<void> {
  for (const table of TABLES) {
    const now = Date.now() / 1000;
    const rows = await db.query<{ id: number; expavg_credit: number; expavg_time: number }[]>(
      `SELECT id, expavg_credit, expavg_time FROM \`${table}\` WHERE expavg_credit > 0.1 AND expavg_time < ?`,
      [now - minAgeS],
    );
    for (const r of rows) {
      const [avg, time] = boincUpdateAverage(now, 0, 0, Number(r.expavg_credit), Number(r.expavg_time));
      // SET is evaluated left to right: each variable takes the column's value before this UPDATE changes it.
      const [, [old]] = await db.query<[unknown, { avg: number; time: number }[]]>(
        `UPDATE \`${table}\` SET expavg_time = IF((@old_time := expavg_time) IS NULL, ?, ?),
           expavg_credit = IF((@old_avg := expavg_credit) IS NULL, ?, ?) WHERE id = ?;
         SELECT @old_avg AS avg, @old_time AS time`,
        [time.toFixed(6), time.toFixed(6), avg.toFixed(6), avg.toFixed(6), r.id],
      );
      const lost = decayed(Number(old!.avg), Number(old!.time), now) - decayed(Number(r.expavg_credit), Number(r.expavg_time), now);
      if (Math.abs(lost) > 1e-9 * Math.max(1, avg)) {
        counts.statsOverwrites++;
        record({ kind: "stats-overwrite", table, id: Number(r.id), lost, at: now });
      }
    }
    counts.statsRows += rows.length;
  }
  counts.statsRuns++;
}
