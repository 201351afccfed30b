/**
 * GET /v1/cpid/:cpid: one volunteer's credit across the projects of this deployment, found by
 * the cross-project id each project sent with PUT users (BOINC's exported cpid: md5 of the
 * internal cross_project_id followed by the email address; the email never comes here).
 * Hosts whose host_cpid matches are listed too. Users who opted out of stats export are left
 * out, as BOINC's export leaves them (and their hosts) out. An answer reads at most
 * MAX_CPID_ROWS of each (the rest by next_cursor), and is kept a minute in the Cache API like
 * any public read that no KV key holds (docs/public-reads.md): a flood of one cpid reads D1
 * once a minute per location. A 404 is not kept, so a cpid shows as soon as it is registered
 * or its volunteer opts back in; a miss of the cpid indexes is cheap (docs/public-reads.md).
 */
import { createRouter } from "../../http/router";
import { sumRecentAverages } from "../../credit/cross-project-totals";
import { type RecentAverage, decayedRecentAverage } from "../../credit/recent-average";
import type { AppEnv } from "../../env";
import { ApiError } from "../../http/errors";
import { readThrough, setCacheValidators } from "../../snapshots/store";
import { serverNow } from "../common";
import type { AppRouteHandler } from "../route-handler";
import { route } from "./cpid.routes";
import { type CpidCursor, decodeCpidCursor, encodeCpidCursor } from "./cpid.schemas";
import { loadCpidRows } from "./cpid.service";

/** One page and whether every database answered; data null (404) when the first page finds nobody and nothing follows. */
async function cpidAnswer(env: AppEnv["Bindings"], cpid: string, cursor: CpidCursor | undefined) {
  const { userRows, hostRows, next, complete } = await loadCpidRows(env, cpid, cursor);
  const more = next.accounts !== null || next.hosts !== null;
  if (cursor === undefined && userRows.length === 0 && hostRows.length === 0 && !more) return { data: null, complete };
  const asOf = serverNow();
  const credit = (r: RecentAverage & { totalCredit: number }) => ({
    total_credit: r.totalCredit,
    expavg_credit: r.expavgCredit,
    expavg_time: r.expavgTime,
    recent_average_credit: decayedRecentAverage(r, asOf),
  });
  const totals = sumRecentAverages(userRows, asOf);
  const data = {
    cpid,
    as_of: asOf,
    total_credit: totals.totalCredit,
    recent_average_credit: totals.recentAverageCredit,
    projects: userRows.map((u) => ({
      project: u.slug,
      project_name: u.projectName,
      url: u.url,
      user_id: u.id,
      name: u.name,
      ...credit(u),
    })),
    hosts: hostRows.map((h) => ({ project: h.slug, host_id: h.id, name: h.name, ...credit(h) })),
    more_projects: next.accounts !== null,
    more_hosts: next.hosts !== null,
    next_cursor: more ? encodeCpidCursor(next) : null,
  };
  return { data, complete };
}

const cpidRead: AppRouteHandler<typeof route> = async (c) => {
  const { cpid } = c.req.valid("param");
  const { cursor } = c.req.valid("query");
  const at = cursor === undefined ? undefined : decodeCpidCursor(cursor)!;
  const key = cursor === undefined ? `cpid/${cpid}` : `cpid/${cpid}/${cursor}`;
  // Kept a minute unless it is a 404 or a database failed (then the next read tries again).
  let keep = false;
  const load = async () => {
    const { data, complete } = await cpidAnswer(c.env, cpid, at);
    keep = data !== null && complete;
    return data;
  };
  const read = await readThrough(c, key, load, { kv: false, keep: () => keep });
  if (read === null) throw new ApiError(404, "not_found", `no user or host with cpid ${cpid}`);
  if (setCacheValidators(c, [read.version])) return c.body(null, 304);
  return c.json(read.data, 200);
};

export const cpidRouter = createRouter().openapi(route, cpidRead);
