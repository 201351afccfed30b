/**
 * Loads a trace into BOINC's tables the way BOINC's validator would have left them: each
 * pass's results with mod_time = the pass's time and granted_credit from the expected
 * numbers, errors as results with their outcome (their own workunit), and hosts, users and
 * teams created when a pass first names them (so that BOINC's create_time starts the same RAC
 * clock a pass would; an error creates no host in Cobblestone, so a host first seen erring
 * takes the time of its first pass).
 */
import type mysql from "mysql2/promise";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import type { TraceExpected, TraceOp } from "./trace-types";

/** Error results and their workunits get ids far above the trace's own. */
export const ERROR_RESULT_IDS_FROM = 900_000_000;
const ERROR_WORKUNIT_IDS_FROM = 800_000_000;
const INSERT_CHUNK = 2000;

/** A TIMESTAMP literal in UTC (the loading session's time zone). */
export function sqlTime(unixSeconds: number): string {
  return new Date(Math.floor(unixSeconds) * 1000).toISOString().slice(0, 19).replace("T", " ");
}

async function insert(conn: mysql.Connection, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await conn.query(`INSERT INTO \`${table}\` (${columns.join(", ")}) VALUES ?`, [rows.slice(i, i + INSERT_CHUNK)]);
  }
}

export async function loadTrace(
  conn: mysql.Connection,
  ops: TraceOp[],
  expected: Pick<TraceExpected, "results" | "workunits">,
): Promise<void> {
  await conn.query("SET time_zone = '+00:00'");
  const granted = new Map(expected.results.map((r) => [r.id, r.granted_credit]));
  const credit = new Map(expected.workunits.map((w) => [w.id, w.credit]));
  const apps = new Map<string, number>();
  const platforms = new Map<string, number>();
  const versionApp = new Map<number, number>();
  const appRows: unknown[][] = [];
  const versionRows: unknown[][] = [];
  const workunits = new Map<number, unknown[]>();
  const results: unknown[][] = [];
  const hosts = new Map<number, { create: number; user: number; fromPass: boolean }>();
  const users = new Map<number, { create: number; team: number }>();
  const teams = new Map<number, number>();
  let errorIds = ERROR_RESULT_IDS_FROM;
  let errorWorkunits = ERROR_WORKUNIT_IDS_FROM;

  for (const op of ops) {
    if (op.op === "app") {
      apps.set(op.name, apps.size + 1);
      appRows.push([apps.size, op.name, op.host_scale_check ? 1 : 0, op.target_nresults ?? 0]);
    } else if (op.op === "app_version") {
      if (!platforms.has(op.platform)) platforms.set(op.platform, platforms.size + 1);
      versionApp.set(op.id, apps.get(op.app)!);
      versionRows.push([op.id, apps.get(op.app), op.version_num, platforms.get(op.platform), op.plan_class]);
    } else if (op.op === "pass") {
      for (const w of op.workunits) {
        if (!workunits.has(w.id)) {
          const canonical = w.results.find((r) => r.validate_state === "valid")?.id ?? 0;
          workunits.set(w.id, [
            w.id,
            apps.get(w.app),
            `wu_${w.id}`,
            w.rsc_fpops_est,
            w.rsc_fpops_bound,
            w.target_nresults,
            canonical,
            credit.get(w.id) ?? 0,
            86400,
          ]);
        }
        for (const r of w.results) {
          if (!hosts.get(r.host_id)?.fromPass) hosts.set(r.host_id, { create: op.now, user: r.user_id ?? 0, fromPass: true });
          if (r.user_id && !users.has(r.user_id)) users.set(r.user_id, { create: op.now, team: r.team_id ?? 0 });
          if (r.team_id && !teams.has(r.team_id)) teams.set(r.team_id, op.now);
          results.push([
            r.id,
            w.id,
            OUTCOME.success,
            r.host_id,
            r.user_id ?? 0,
            r.team_id ?? 0,
            r.sent_time,
            r.received_time,
            r.cpu_time,
            r.validate_state === "valid" ? VALIDATE_STATE.valid : VALIDATE_STATE.invalid,
            granted.get(r.id) ?? 0,
            0,
            sqlTime(op.now),
            r.elapsed_time,
            r.flops_estimate,
            r.app_version_id,
            r.runtime_outlier ? 1 : 0,
          ]);
        }
      }
    } else if (op.op === "error") {
      const appId = op.app_version_id < 0 ? apps.get(op.app!)! : versionApp.get(op.app_version_id)!;
      const wu = ++errorWorkunits;
      workunits.set(wu, [wu, appId, `wu_${wu}`, 1e12, 1e13, 1, 0, 0, op.delay_bound ?? 86400]);
      if (!hosts.has(op.host_id)) hosts.set(op.host_id, { create: op.now, user: 0, fromPass: false });
      results.push([
        ++errorIds,
        wu,
        op.kind === "timeout" ? OUTCOME.noReply : OUTCOME.clientError,
        op.host_id,
        0,
        0,
        op.now - 3600,
        op.kind === "timeout" ? 0 : op.now,
        0,
        VALIDATE_STATE.init,
        0,
        op.kind === "timeout" ? 0 : -1,
        sqlTime(op.now),
        0,
        0,
        op.app_version_id,
        0,
      ]);
    }
  }
  await insert(
    conn,
    "platform",
    ["id", "name"],
    [...platforms].map(([name, id]) => [id, name]),
  );
  await insert(conn, "app", ["id", "name", "host_scale_check", "target_nresults"], appRows);
  await insert(conn, "app_version", ["id", "appid", "version_num", "platformid", "plan_class"], versionRows);
  await insert(
    conn,
    "team",
    ["id", "create_time", "name"],
    [...teams].map(([id, t]) => [id, t, `Team ${id}`]),
  );
  await insert(
    conn,
    "user",
    ["id", "create_time", "teamid", "name", "email_addr", "cross_project_id"],
    [...users].map(([id, u]) => [id, u.create, u.team, `User ${id}`, `user${id}@example.org`, `xp${id.toString(16).padStart(8, "0")}`]),
  );
  await insert(
    conn,
    "host",
    ["id", "create_time", "userid", "host_cpid"],
    [...hosts].map(([id, h]) => [id, h.create, h.user, `hostcpid${id}`]),
  );
  await insert(
    conn,
    "workunit",
    ["id", "appid", "name", "rsc_fpops_est", "rsc_fpops_bound", "target_nresults", "canonical_resultid", "canonical_credit", "delay_bound"],
    [...workunits.values()],
  );
  await insert(
    conn,
    "result",
    [
      "id",
      "workunitid",
      "outcome",
      "hostid",
      "userid",
      "teamid",
      "sent_time",
      "received_time",
      "cpu_time",
      "validate_state",
      "granted_credit",
      "exit_status",
      "mod_time",
      "elapsed_time",
      "flops_estimate",
      "app_version_id",
      "runtime_outlier",
    ],
    results,
  );
}
