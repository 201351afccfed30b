/**
 * The write half of an account-manager RPC, run by the caller as ONE D1 batch (atomic):
 * the RPC row (its sequence number collides with a concurrent RPC of the same host, its time
 * with a replay), the new baselines, and the booked deltas applied in SQL to the daily rows'
 * CURRENT values, so RPCs of different hosts sharing user, project and total rows never lose
 * an update.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Totals } from "../credit/am-deltas";
import { type AmSubject, amDaily, amHostProjects, amRpcs } from "./schema";
import { chunks, insertFromJson, withJsonRows, name, ref } from "./sql-helpers";

/** What one daily row gets from one RPC. */
export interface DailyDelta {
  readonly subject: AmSubject;
  readonly entityId: number;
  /** The project's URL key, '' for subjects without a project. */
  readonly url: string;
  /** host and host_project rows: the user the delta was booked for; 0 otherwise. */
  readonly userId: number;
  readonly ec: number;
  readonly claimedEc: number;
  readonly cpuTime: number;
  readonly gpuTime: number;
  readonly njobsSuccess: number;
  readonly njobsError: number;
}

const SUMMED = ["ec", "claimedEc", "cpuTime", "gpuTime", "njobsSuccess", "njobsError"] as const;

export function rpcInsert(
  amId: number,
  hostId: number,
  row: { seq: number; rpcTime: number; userId: number; fingerprint: string; outcome: string },
): SQL {
  return sql`INSERT INTO ${amRpcs} (${name(amRpcs.amId)}, ${name(amRpcs.hostId)}, ${name(amRpcs.seq)}, ${name(amRpcs.rpcTime)},
      ${name(amRpcs.userId)}, ${name(amRpcs.fingerprint)}, ${name(amRpcs.outcome)})
    VALUES (${amId}, ${hostId}, ${row.seq}, ${row.rpcTime}, ${row.userId}, ${row.fingerprint}, ${row.outcome})`;
}

/** The reported totals become the baselines of the next RPC's deltas. */
export function baselineWrites(
  amId: number,
  hostId: number,
  now: number,
  rows: readonly ({ url: string; masterUrl: string } & Totals)[],
): SQL[] {
  const t = amHostProjects;
  const columns = [t.cpuEc, t.cpuTime, t.gpuEc, t.gpuTime, t.njobsSuccess, t.njobsError, t.lastTime, t.masterUrl];
  const update = sql.join(
    columns.map((c) => sql`${name(c)} = excluded.${name(c)}`),
    sql`, `,
  );
  return chunks(rows).map((chunk) =>
    insertFromJson(
      sql`${t}`,
      [
        [t.amId, sql`${amId}`],
        [t.hostId, sql`${hostId}`],
        [t.url, "url"],
        [t.masterUrl, "masterUrl"],
        [t.lastTime, sql`${now}`],
        [t.cpuEc, "cpu_ec"],
        [t.cpuTime, "cpu_time"],
        [t.gpuEc, "gpu_ec"],
        [t.gpuTime, "gpu_time"],
        [t.njobsSuccess, "njobs_success"],
        [t.njobsError, "njobs_error"],
      ],
      chunk,
      sql`ON CONFLICT DO UPDATE SET ${update}`,
    ),
  );
}

/** Sums deltas that go to the same row (one statement may touch a row only once). */
function mergeDailyDeltas(deltas: readonly DailyDelta[]): DailyDelta[] {
  const rows = new Map<string, DailyDelta>();
  for (const d of deltas) {
    const key = `${d.subject}\u0000${d.entityId}\u0000${d.url}`;
    const had = rows.get(key);
    rows.set(key, had ? { ...had, ...Object.fromEntries(SUMMED.map((f) => [f, had[f] + d[f]])) } : d);
  }
  return [...rows.values()];
}

/**
 * Books deltas on `day`: each row's day deltas grow, and its running total is the previous
 * day's total plus the day's deltas. A booking on a day before later rows (a backfill, or
 * another host whose clock is behind) raises those later running totals too.
 */
export function dailyBookingWrites(amId: number, day: number, deltas: readonly DailyDelta[]): SQL[] {
  const d = amDaily;
  const rows = mergeDailyDeltas(deltas);
  const j = (field: string) => sql`json_extract(j.value, ${`$.${field}`})`;
  const previousTotal = sql`coalesce((SELECT p.${name(d.totalEc)} FROM ${d} AS p
      WHERE p.${name(d.amId)} = ${amId} AND p.${name(d.subject)} = ${j("subject")} AND p.${name(d.entityId)} = ${j("entityId")}
        AND p.${name(d.url)} = ${j("url")} AND p.${name(d.day)} < ${day}
      ORDER BY p.${name(d.day)} DESC LIMIT 1), 0.0)`;
  const summed = [d.ec, d.claimedEc, d.cpuTime, d.gpuTime, d.njobsSuccess, d.njobsError];
  const onConflict = sql`ON CONFLICT DO UPDATE SET ${sql.join(
    [
      ...summed.map((c) => sql`${name(c)} = ${name(c)} + excluded.${name(c)}`),
      sql`${name(d.totalEc)} = ${name(d.totalEc)} + excluded.${name(d.ec)}`,
      sql`${name(d.userId)} = excluded.${name(d.userId)}`,
    ],
    sql`, `,
  )}`;
  const g = (f: string) => ref("g", f);
  return chunks(rows).flatMap((chunk) => [
    insertFromJson(
      sql`${d}`,
      [
        [d.amId, sql`${amId}`],
        [d.subject, "subject"],
        [d.entityId, "entityId"],
        [d.url, "url"],
        [d.day, sql`${day}`],
        [d.userId, "userId"],
        [d.ec, "ec"],
        [d.claimedEc, "claimedEc"],
        [d.cpuTime, "cpuTime"],
        [d.gpuTime, "gpuTime"],
        [d.njobsSuccess, "njobsSuccess"],
        [d.njobsError, "njobsError"],
        [d.totalEc, sql`${j("ec")} + ${previousTotal}`],
      ],
      chunk,
      onConflict,
    ),
    sql`${withJsonRows("g", ["subject", "entityId", "url", "ec"], chunk)}
      UPDATE ${d} SET ${name(d.totalEc)} = ${name(d.totalEc)} + ${g("ec")}
      FROM g
      WHERE ${d}.${name(d.amId)} = ${amId} AND ${d}.${name(d.subject)} = ${g("subject")}
        AND ${d}.${name(d.entityId)} = ${g("entityId")} AND ${d}.${name(d.url)} = ${g("url")} AND ${d}.${name(d.day)} > ${day}`,
  ]);
}
