/**
 * GET /v1/cpid/:cpid: one volunteer's credit across the projects of this deployment, found by
 * the cross-project id each project sent with PUT users (BOINC's exported cpid: md5 of the
 * internal cross_project_id followed by the email address; the email never comes here).
 * Hosts whose host_cpid matches are listed too. Users who opted out of stats export are left
 * out, as BOINC's export leaves them (and their hosts) out. At most MAX_CPID_ROWS of each; an
 * answer that reached that bound is kept a minute in the Cache API (docs/public-reads.md), so a
 * flood of one crowded cpid reads D1 once a minute per location.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { sumRecentAverages } from "../../credit/cross-project-totals";
import { decayedRecentAverage } from "../../credit/recent-average";
import type { hosts, users } from "../../db/schema";
import type { AppEnv } from "../../env";
import { ApiError } from "../../http/errors";
import { readThrough } from "../../snapshots/store";
import { SNAPSHOT_LIMITS } from "../../snapshots/limits";
import { serverNow } from "../common";
import { route } from "./cpid.routes";
import { loadCpidRows } from "./cpid.service";

async function cpidAnswer(env: AppEnv["Bindings"], cpid: string) {
  const { userRows, hostRows, moreProjects, moreHosts } = await loadCpidRows(env, cpid);
  if (userRows.length === 0 && hostRows.length === 0) return null;
  const asOf = serverNow();
  const credit = (r: typeof users.$inferSelect | typeof hosts.$inferSelect) => ({
    total_credit: r.totalCredit,
    expavg_credit: r.expavgCredit,
    expavg_time: r.expavgTime,
    recent_average_credit: decayedRecentAverage(r, asOf),
  });
  const totals = sumRecentAverages(
    userRows.map((r) => r.u),
    asOf,
  );
  return {
    cpid,
    as_of: asOf,
    total_credit: totals.totalCredit,
    recent_average_credit: totals.recentAverageCredit,
    projects: userRows.map(({ p, u }) => ({
      project: p.slug,
      project_name: p.name,
      url: p.url,
      user_id: u.id,
      name: u.name,
      ...credit(u),
    })),
    hosts: hostRows.map(({ slug, h }) => ({ project: slug, host_id: h.id, name: h.name, ...credit(h) })),
    more_projects: moreProjects,
    more_hosts: moreHosts,
  };
}

export function mountCpid(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const { cpid } = c.req.valid("param");
    const read = await readThrough(c, `cpid/${cpid}`, () => cpidAnswer(c.env, cpid), {
      kv: false,
      keep: (answer) => answer !== null && (answer.more_projects || answer.more_hosts),
    });
    if (read === null) throw new ApiError(404, "not_found", `no user or host with cpid ${cpid}`);
    c.header("Cache-Control", `public, max-age=${SNAPSHOT_LIMITS.maxAgeSeconds}`);
    return c.json(read.data, 200);
  });
}
