/**
 * For the write-back tests: a trace's BOINC database as a --no_credit validator leaves it, a
 * writable account, and every credit column the write-back must have set, computed here by
 * hand from the grants (BOINC's update_average written out below, as lib/util.cpp states it).
 */
import type mysql from "mysql2/promise";
import type { MariaDb } from "./mariadb";
import type { TraceOp } from "./trace-types";
import { relativeError } from "./trace-types";
import { TOLERANCE } from "./service";

export const WRITER = { name: "writer", password: "wr1te" };

/** An account that may do what --write-back does on `name` (SELECT, UPDATE, INSERT, DELETE for pruning the bridge's own table, and CREATE for its tables). */
export async function writerDsn(maria: MariaDb, name: string): Promise<string> {
  const root = await maria.root();
  await root.query(`CREATE USER IF NOT EXISTS '${WRITER.name}'@'127.0.0.1' IDENTIFIED BY '${WRITER.password}'`);
  await root.query(`GRANT SELECT, UPDATE, INSERT, DELETE, CREATE ON \`${name}\`.* TO '${WRITER.name}'@'127.0.0.1'`);
  await root.end();
  return `mysql://${WRITER.name}:${WRITER.password}@127.0.0.1:${maria.port}/${name}`;
}

/** What BOINC's validator run with --no_credit leaves: validated results, nothing granted (mod_time kept). */
export async function asNoCreditValidatorLeftIt(maria: MariaDb, name: string): Promise<void> {
  const conn = await maria.root(name);
  await conn.query(
    "UPDATE result SET granted_credit = 0, mod_time = mod_time; UPDATE workunit SET canonical_credit = 0, mod_time = mod_time",
  );
  await conn.end();
}

const HALF_LIFE = 7 * 86400;

/** BOINC's update_average (lib/util.cpp), written out: returns [avg, avg_time]. */
export function boincUpdateAverage(now: number, start: number, work: number, avg: number, avgTime: number): [number, number] {
  if (avgTime) {
    const diff = Math.max(now - avgTime, 0);
    const weight = Math.exp((-diff * Math.LN2) / HALF_LIFE);
    avg *= weight;
    if (1 - weight > 1e-6) avg += (1 - weight) * (work / (diff / 86400));
    else avg += (Math.LN2 * work * 86400) / HALF_LIFE;
  } else if (work) {
    avg = work / ((now - start) / 86400);
  }
  return [avg, now];
}

interface Acc {
  total: number;
  avg: number;
  time: number;
  njobs: number;
}

/**
 * Every credit column the write-back should leave, by hand: the grants of the trace's passes in
 * the bridge's posting order (workunits by id, results by id), `credit` per result id; the
 * host's user and that user's team from the database rows (BOINC's grant_credit), per-app rows
 * by the result's own user and team (grant_credit_by_app), a new per-app row's clock at the grant.
 */
export function expectedColumns(
  ops: TraceOp[],
  credit: Map<number, number>,
  hostUser: Map<number, number>,
  userTeam: Map<number, number>,
  appIds: Map<string, number>,
) {
  const holders = { host: new Map<number, Acc>(), user: new Map<number, Acc>(), team: new Map<number, Acc>() };
  const creditUser = new Map<string, Acc>();
  const creditTeam = new Map<string, Acc>();
  const results = new Map<number, number>();
  const workunits = new Map<number, number>();
  const add = (map: Map<number, Acc>, id: number, now: number, start: number, c: number) => {
    const a = map.get(id) ?? { total: 0, avg: 0, time: 0, njobs: 0 };
    [a.avg, a.time] = boincUpdateAverage(now, start, c, a.avg, a.time);
    a.total += c;
    a.njobs++;
    map.set(id, a);
  };
  const addByApp = (map: Map<string, Acc>, key: string, now: number, start: number, c: number) => {
    const a = map.get(key) ?? { total: 0, avg: 0, time: now, njobs: 0 };
    [a.avg, a.time] = boincUpdateAverage(now, start, c, a.avg, a.time);
    a.total += c;
    a.njobs++;
    map.set(key, a);
  };
  for (const op of ops) {
    if (op.op !== "pass") continue;
    // BOINC's mod_time holds whole seconds: the second the bridge posts, and the grant's time.
    const now = Math.floor(op.now);
    for (const w of [...op.workunits].sort((a, b) => a.id - b.id)) {
      for (const r of [...w.results].sort((a, b) => a.id - b.id)) {
        const c = credit.get(r.id);
        if (r.validate_state !== "valid" || c === undefined) continue;
        results.set(r.id, c);
        workunits.set(w.id, c);
        add(holders.host, r.host_id, now, r.sent_time, c);
        const user = hostUser.get(r.host_id) ?? 0;
        if (user > 0) {
          add(holders.user, user, now, r.sent_time, c);
          const team = userTeam.get(user) ?? 0;
          if (team > 0) add(holders.team, team, now, r.sent_time, c);
        }
        const app = appIds.get(w.app)!;
        addByApp(creditUser, `${r.user_id ?? 0}/${app}`, now, r.sent_time, c);
        addByApp(creditTeam, `${r.team_id ?? 0}/${app}`, now, r.sent_time, c);
      }
    }
  }
  return { results, workunits, holders, creditUser, creditTeam };
}

/** Mismatches between two numbers at the traces' tolerance, as lines. */
export function checker() {
  const mismatches: string[] = [];
  const check = (what: string, actual: unknown, want: number) => {
    const a = Number(actual);
    if (actual === undefined || actual === null || !(relativeError(a, want) <= TOLERANCE))
      mismatches.push(`${what}: got ${actual}, expected ${want}`);
  };
  return { mismatches, check };
}

/** What a holder's or per-app row should hold (expectedColumns' and the like). */
interface WantRow {
  total: number;
  avg: number;
  time: number;
  njobs: number;
}

/**
 * The host, user and team rows' totals and recent averages, and the credit_user and credit_team
 * rows (credit_type 0), against `want`, as lines for `check` and `mismatches` (checker()).
 */
export async function holderMismatches(
  conn: mysql.Connection,
  want: {
    holders: Record<"host" | "user" | "team", Map<number, WantRow>>;
    creditUser: Map<string, WantRow>;
    creditTeam: Map<string, WantRow>;
  },
  { mismatches, check }: ReturnType<typeof checker>,
): Promise<void> {
  const rows = async <R>(sql: string) => (await conn.query(sql))[0] as R[];
  for (const kind of ["host", "user", "team"] as const) {
    for (const row of await rows<{ id: number; total_credit: number; expavg_credit: number; expavg_time: number }>(
      `SELECT id, total_credit, expavg_credit, expavg_time FROM ${kind}`,
    )) {
      const a = want.holders[kind].get(row.id) ?? { total: 0, avg: 0, time: 0 };
      check(`${kind} ${row.id} total_credit`, row.total_credit, a.total);
      check(`${kind} ${row.id} expavg_credit`, row.expavg_credit, a.avg);
      check(`${kind} ${row.id} expavg_time`, row.expavg_time, a.time);
    }
  }
  for (const [table, holder, map] of [
    ["credit_user", "userid", want.creditUser],
    ["credit_team", "teamid", want.creditTeam],
  ] as const) {
    const got = await rows<{ holder: number; appid: number; njobs: number; total: number; expavg: number; expavg_time: number }>(
      `SELECT ${holder} AS holder, appid, njobs, total, expavg, expavg_time FROM ${table} WHERE credit_type = 0`,
    );
    if (got.length !== map.size) mismatches.push(`${table}: ${got.length} rows, expected ${map.size}`);
    for (const row of got) {
      const a = map.get(`${row.holder}/${row.appid}`);
      if (!a) {
        mismatches.push(`${table} ${row.holder}/${row.appid} should not exist`);
        continue;
      }
      check(`${table} ${row.holder}/${row.appid} njobs`, row.njobs, a.njobs);
      check(`${table} ${row.holder}/${row.appid} total`, row.total, a.total);
      check(`${table} ${row.holder}/${row.appid} expavg`, row.expavg, a.avg);
      check(`${table} ${row.holder}/${row.appid} expavg_time`, row.expavg_time, a.time);
    }
  }
}
