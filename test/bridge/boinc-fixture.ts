/** One MariaDB with BOINC databases for the bridge tests, and a read-only account like a project would give the bridge. */
import { readFileSync } from "node:fs";
import { BOINC_TABLES } from "./boinc-schema";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import type { EventLog } from "../../bridge/telling/event-log";
import { loadTrace, sqlTime } from "./load-trace";
import type { MariaDb } from "./mariadb";
import { parseTrace, type TraceExpected } from "./trace-types";

export const BRIDGE_USER = { name: "bridge", password: "s3cret pass" };

export const fixtureText = (name: string) => readFileSync(new URL(`../fixtures/traces/${name}`, import.meta.url), "utf8");

/**
 * The text log's lines (what --log-format text prints) into `lines`, less the warning that the
 * result table has no index on mod_time: every database here has BOINC's own indexes, so every
 * run warns (bad-input.test.ts tests the warning), and a test of other lines leaves it out.
 */
export function linesBesidesIndexAdvice(lines: string[]): EventLog {
  return (e) => {
    if (!e.jsonOnly && e.event !== "no_mod_time_index") lines.push(e.msg);
  };
}

/** A database with BOINC's tables (and indexes: none on result.mod_time), readable (only) by BRIDGE_USER; returns its DSN. */
export async function createBoincDb(maria: MariaDb, name: string): Promise<string> {
  const root = await maria.root();
  await root.query(`CREATE DATABASE \`${name}\``);
  await root.query(`USE \`${name}\`; ${BOINC_TABLES}`);
  await root.query(`CREATE USER IF NOT EXISTS '${BRIDGE_USER.name}'@'127.0.0.1' IDENTIFIED BY '${BRIDGE_USER.password}'`);
  await root.query(`GRANT SELECT ON \`${name}\`.* TO '${BRIDGE_USER.name}'@'127.0.0.1'`);
  await root.end();
  return `mysql://${BRIDGE_USER.name}:${encodeURIComponent(BRIDGE_USER.password)}@127.0.0.1:${maria.port}/${name}`;
}

/** A BOINC database holding a trace the way BOINC's validator leaves it. */
export async function boincDbWithTrace(maria: MariaDb, name: string, trace: string) {
  const dsn = await createBoincDb(maria, name);
  const ops = parseTrace(fixtureText(`${trace}.jsonl`));
  const expected = JSON.parse(fixtureText(`${trace}.expected.json`)) as TraceExpected;
  const conn = await maria.root(name);
  await loadTrace(conn, ops, expected);
  await conn.end();
  const appNumbers = new Map<string, number>();
  for (const op of ops) if (op.op === "app") appNumbers.set(op.name, appNumbers.size + 1);
  return { dsn, ops, expected, appNumbers };
}

/**
 * A small BOINC database: apps alpha (version 1) and beta (version 2), host 7 of user 3 in team
 * 5 (created 9000 s before T), and the given result rows, result i+1 on its own workunit i+1
 * (of alpha) decided at T + i unless a row says otherwise.
 */
export async function smallBoincDb(maria: MariaDb, name: string, T: number, results: Record<string, unknown>[]): Promise<string> {
  const dsn = await createBoincDb(maria, name);
  const conn = await maria.root(name);
  await conn.query(`SET time_zone = '+00:00';
    INSERT INTO platform (id, name) VALUES (1, 'x86_64-pc-linux-gnu');
    INSERT INTO app (id, name) VALUES (1, 'alpha'), (2, 'beta');
    INSERT INTO app_version (id, appid, version_num, platformid, plan_class) VALUES (1, 1, 100, 1, ''), (2, 2, 100, 1, '');
    INSERT INTO team (id, create_time, name) VALUES (5, ${T - 9000}, 'Team five');
    INSERT INTO user (id, create_time, teamid, name, email_addr, cross_project_id) VALUES (3, ${T - 9000}, 5, 'Ada', 'ada@example.org', 'abc');
    INSERT INTO host (id, create_time, userid, host_cpid) VALUES (7, ${T - 9000}, 3, 'hostcpid');
    ALTER TABLE result MODIFY flops_estimate double NULL;`);
  for (const [i, r] of results.entries()) {
    const row = {
      id: i + 1,
      workunitid: i + 1,
      outcome: OUTCOME.success,
      hostid: 7,
      userid: 3,
      teamid: 5,
      sent_time: T - 5000,
      received_time: T - 100,
      cpu_time: 900,
      validate_state: VALIDATE_STATE.valid,
      granted_credit: 1,
      elapsed_time: 1000,
      flops_estimate: 1e10,
      app_version_id: 1,
      mod_time: sqlTime(T + i),
      ...r,
    };
    if (row.workunitid === i + 1) {
      await conn.query(
        "INSERT INTO workunit (id, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults) VALUES (?, 1, ?, 1e13, 1e14, 1)",
        [row.workunitid, `wu${i + 1}`],
      );
    }
    await conn.query("INSERT INTO result SET ?", [row]);
  }
  await conn.end();
  return dsn;
}
