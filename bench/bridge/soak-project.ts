/**
 * The soak's BOINC project (`npm run soak:bridge`): BOINC's tables (test/bridge/boinc-schema.ts)
 * with a few apps, versions, hosts, users and teams, which the daemons' process
 * (boinc-daemons.ts) fills with workunits and results. Host h belongs to user
 * ((h - 1) mod USERS) + 1; users 1-6 are in teams 1-3, users 7 and 8 in no team.
 */
import type mysql from "mysql2/promise";

export const SOAK_HOSTS = 16;
export const SOAK_USERS = 8;
const TEAMS = 3;
const USERS_IN_TEAMS = 6;

export const ownerOf = (host: number) => ((host - 1) % SOAK_USERS) + 1;
export const teamOf = (user: number) => (user <= USERS_IN_TEAMS ? ((user - 1) % TEAMS) + 1 : 0);

/** An app, its estimate, and its versions (ids of app_version). */
export interface SoakApp {
  id: number;
  name: string;
  fpopsEst: number;
  versions: number[];
}
export const SOAK_APPS: SoakApp[] = [
  { id: 1, name: "soak_alpha", fpopsEst: 3e13, versions: [1, 2] },
  { id: 2, name: "soak_beta", fpopsEst: 1e14, versions: [3, 4] },
];

/** A host's speed (flops_estimate of its results), in a fixed spread. */
export const hostFlops = (host: number) => 2e9 + ((host * 7) % SOAK_HOSTS) * 4e8;

/**
 * Credit a holder had before the switch (BOINC granted it): a total, and a recent average as of
 * `averagedAt` (a minute before the soak), so that every grant of the bridge moves an average
 * that has a time (a row with none takes its first grant divided by the days since the result
 * was sent, and the order of grants sharing a second would then decide the average) and the
 * first grant's gap is short (update_stats decaying the row before it then changes it by about
 * 1e-5, as between any two grants: soak-checks.ts).
 */
const prior = (id: number, scale: number) => [scale * (1000 + 37 * id), scale * (40 + 3 * id)];

/** Loads the fixed rows into a database that has BOINC's tables already (createBoincDb). */
export async function loadSoakProject(conn: mysql.Connection, createdAt: number, averagedAt: number): Promise<void> {
  const users = Array.from({ length: SOAK_USERS }, (_, i) => i + 1);
  const hosts = Array.from({ length: SOAK_HOSTS }, (_, i) => i + 1);
  await conn.query(
    `SET time_zone = '+00:00';
     INSERT INTO platform (id, name) VALUES (1, 'x86_64-pc-linux-gnu'), (2, 'windows_x86_64');
     INSERT INTO app (id, name, target_nresults) VALUES ?;
     INSERT INTO app_version (id, appid, version_num, platformid, plan_class) VALUES
       (1, 1, 100, 1, ''), (2, 1, 100, 1, 'avx'), (3, 2, 210, 1, ''), (4, 2, 210, 2, '');
     INSERT INTO team (id, create_time, name, total_credit, expavg_credit, expavg_time) VALUES ?;
     INSERT INTO user (id, create_time, teamid, name, email_addr, cross_project_id, total_credit, expavg_credit, expavg_time) VALUES ?;
     INSERT INTO host (id, create_time, userid, host_cpid, p_fpops, total_credit, expavg_credit, expavg_time) VALUES ?`,
    [
      SOAK_APPS.map((a) => [a.id, a.name, 2]),
      Array.from({ length: TEAMS }, (_, i) => [i + 1, createdAt, `Soak team ${i + 1}`, ...prior(i + 1, 4), averagedAt]),
      users.map((u) => [u, createdAt, teamOf(u), `Soaker ${u}`, `soaker${u}@example.org`, `soakxp${u}`, ...prior(u, 2), averagedAt]),
      hosts.map((h) => [h, createdAt, ownerOf(h), `soakhost${h}`, hostFlops(h), ...prior(h, 1), averagedAt]),
    ],
  );
}
