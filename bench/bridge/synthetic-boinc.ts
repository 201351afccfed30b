/**
 * A synthetic BOINC project for the bridge benchmark, written straight into BOINC's tables:
 * replication 2, `perPass` results decided together every `secondsBetween` s of history (dense:
 * 100 every 10 s; sparse: one workunit, 2 results, every second), by default 500 hosts of 250
 * users in 25 teams (a workload can have as many as it likes: one where most results bring a
 * new host, user and team), two CPU versions of one app, 5% invalid results.
 */
import type mysql from "mysql2/promise";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import { sqlTime } from "../../test/bridge/load-trace";

export const HISTORY_START = 1_700_000_000;
const CHUNK = 5000;
/** A prime: coprime to any host count it does not divide, so a round goes through every host. */
const STRIDE = 7919;

/** How many hosts, users and teams the results are spread over: host h belongs to user h mod users, user u to team u mod teams. */
export interface Holders {
  hosts: number;
  users: number;
  teams: number;
  /** Results go round the hosts in a fixed stride (each host used once before any twice) instead of at random. */
  roundRobin?: boolean;
}
export const DEFAULT_HOLDERS: Holders = { hosts: 500, users: 250, teams: 25 };

/** A deterministic hash of an integer to [0, 1). */
const unit = (n: number) => (((n * 2654435761) >>> 0) % 1_000_003) / 1_000_003;

export async function loadSyntheticProject(
  conn: mysql.Connection,
  results: number,
  perPass: number,
  secondsBetween: number,
  holders: Holders = DEFAULT_HOLDERS,
): Promise<void> {
  const { hosts: HOSTS, users: USERS, teams: TEAMS } = holders;
  await conn.query(`SET time_zone = '+00:00';
    INSERT INTO platform (id, name) VALUES (1, 'x86_64-pc-linux-gnu');
    INSERT INTO app (id, name) VALUES (1, 'bench');
    INSERT INTO app_version (id, appid, version_num, platformid, plan_class) VALUES (1, 1, 100, 1, ''), (2, 1, 100, 1, 'avx')`);
  const created = HISTORY_START - 86400;
  const many = async (sql: string, rows: unknown[][]) => {
    for (let i = 0; i < rows.length; i += CHUNK) await conn.query(sql, [rows.slice(i, i + CHUNK)]);
  };
  await many(
    "INSERT INTO team (id, create_time, name) VALUES ?",
    Array.from({ length: TEAMS }, (_, i) => [i + 1, created, `Team ${i + 1}`]),
  );
  await many(
    "INSERT INTO user (id, create_time, teamid, name, email_addr, cross_project_id) VALUES ?",
    Array.from({ length: USERS }, (_, i) => [i + 1, created, (i % TEAMS) + 1, `User ${i + 1}`, `u${i + 1}@example.org`, `xp${i + 1}`]),
  );
  await many(
    "INSERT INTO host (id, create_time, userid, host_cpid) VALUES ?",
    Array.from({ length: HOSTS }, (_, i) => [i + 1, created, (i % USERS) + 1, `cpid${i + 1}`]),
  );
  const workunits = Math.ceil(results / 2);
  const workunitsPerPass = Math.max(1, Math.floor(perPass / 2));
  for (let from = 0; from < workunits; from += CHUNK) {
    const wus: unknown[][] = [];
    const rows: unknown[][] = [];
    for (let w = from; w < Math.min(workunits, from + CHUNK); w++) {
      const id = w + 1;
      const decided = HISTORY_START + Math.floor(w / workunitsPerPass) * secondsBetween;
      wus.push([id, 1, `wu${id}`, 1e13, 1e14, 2]);
      for (let k = 0; k < 2; k++) {
        const rid = 2 * w + k + 1;
        if (rid > results) break;
        const host = holders.roundRobin ? (((rid - 1) * STRIDE) % HOSTS) + 1 : Math.floor(unit(rid) * HOSTS) + 1;
        const user = ((host - 1) % USERS) + 1;
        rows.push([
          rid,
          id,
          OUTCOME.success,
          host,
          user,
          ((user - 1) % TEAMS) + 1,
          decided - 5000,
          decided - 100,
          900,
          unit(rid * 7) < 0.05 ? VALIDATE_STATE.invalid : VALIDATE_STATE.valid,
          sqlTime(decided),
          1000 + 500 * unit(rid * 13),
          1e10,
          (host % 2) + 1,
        ]);
      }
    }
    await conn.query("INSERT INTO workunit (id, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults) VALUES ?", [wus]);
    await conn.query(
      `INSERT INTO result (id, workunitid, outcome, hostid, userid, teamid, sent_time, received_time, cpu_time,
        validate_state, mod_time, elapsed_time, flops_estimate, app_version_id) VALUES ?`,
      [rows],
    );
  }
}
