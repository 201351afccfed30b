/**
 * Pure: what a write-back changes, from the rows it read (locked) and the grants in the order
 * the service granted them (docs/spec/write-back.md). Each grant moves, as BOINC's
 * grant_credit does, the result's host, the host's owner (host.userid) and that user's team
 * (user.teamid), and with <credit_by_app/>, as grant_credit_by_app does, the per-app rows of
 * the result's own user and team (result.userid, result.teamid; team 0 included). No I/O here.
 */
import type { RecentAverage } from "../../src/credit/recent-average";

/** A host, user or team row as read: `link` is the host's userid, the user's teamid (0 for a team). */
export interface HolderRow {
  link: number;
  expavg_credit: number;
  expavg_time: number;
}

export interface CreditByAppRow {
  expavg: number;
  expavg_time: number;
  exists: boolean;
}

export interface HolderUpdate {
  add: number;
  expavg: number;
  expavg_time: number;
}

export interface CreditByAppUpdate extends HolderUpdate {
  jobs: number;
  exists: boolean;
}

export interface GrantPlan {
  hosts: Map<number, HolderUpdate>;
  users: Map<number, HolderUpdate>;
  teams: Map<number, HolderUpdate>;
  /** Keyed `holder/appid`. */
  creditUser: Map<string, CreditByAppUpdate>;
  creditTeam: Map<string, CreditByAppUpdate>;
  /** One line per missing host, user or team row (its share of the credit is not written). */
  missing: string[];
}

export interface PlanGrant {
  result_id: number;
  host_id: number;
  user_id: number;
  team_id: number;
  app_id: number;
  sent_time: number;
  credit: number;
  time: number;
}

export interface PlanRows {
  hosts: Map<number, HolderRow>;
  users: Map<number, HolderRow>;
  teams: Map<number, HolderRow>;
  creditUser: Map<string, CreditByAppRow>;
  creditTeam: Map<string, CreditByAppRow>;
  creditByApp: boolean;
}

type Average = (ra: RecentAverage, now: number, start: number, work: number) => RecentAverage;

export function planGrants(grants: PlanGrant[], rows: PlanRows, average: Average): GrantPlan {
  const plan: GrantPlan = {
    hosts: new Map(),
    users: new Map(),
    teams: new Map(),
    creditUser: new Map(),
    creditTeam: new Map(),
    missing: [],
  };

  const credit = (updates: Map<number, HolderUpdate>, row: HolderRow, id: number, g: PlanGrant) => {
    const before = updates.get(id) ?? { add: 0, expavg: row.expavg_credit, expavg_time: row.expavg_time };
    const ra = average({ expavgCredit: before.expavg, expavgTime: before.expavg_time }, g.time, g.sent_time, g.credit);
    updates.set(id, { add: before.add + g.credit, expavg: ra.expavgCredit, expavg_time: ra.expavgTime });
  };
  const creditByApp = (updates: Map<string, CreditByAppUpdate>, read: Map<string, CreditByAppRow>, key: string, g: PlanGrant) => {
    const row = read.get(key);
    // A missing row is created as BOINC creates it: its average's clock set to the grant's time.
    const before = updates.get(key) ?? {
      add: 0,
      jobs: 0,
      exists: row !== undefined,
      expavg: row?.expavg ?? 0,
      expavg_time: row?.expavg_time ?? g.time,
    };
    const ra = average({ expavgCredit: before.expavg, expavgTime: before.expavg_time }, g.time, g.sent_time, g.credit);
    updates.set(key, { ...before, add: before.add + g.credit, jobs: before.jobs + 1, expavg: ra.expavgCredit, expavg_time: ra.expavgTime });
  };

  for (const g of grants) {
    const host = rows.hosts.get(g.host_id);
    if (!host) {
      plan.missing.push(
        `host ${g.host_id} (result ${g.result_id}) is not in the database: its ${g.credit} credit is written to the result only`,
      );
    } else {
      credit(plan.hosts, host, g.host_id, g);
      const user = host.link > 0 ? rows.users.get(host.link) : undefined;
      if (host.link > 0 && !user) {
        plan.missing.push(`user ${host.link}, owner of host ${g.host_id} (result ${g.result_id}), is not in the database: not credited`);
      } else if (user) {
        credit(plan.users, user, host.link, g);
        const team = user.link > 0 ? rows.teams.get(user.link) : undefined;
        if (user.link > 0 && !team)
          plan.missing.push(`team ${user.link} of user ${host.link} (result ${g.result_id}) is not in the database: not credited`);
        else if (team) credit(plan.teams, team, user.link, g);
      }
    }
    if (rows.creditByApp) {
      creditByApp(plan.creditUser, rows.creditUser, `${g.user_id}/${g.app_id}`, g);
      creditByApp(plan.creditTeam, rows.creditTeam, `${g.team_id}/${g.app_id}`, g);
    }
  }
  return plan;
}
