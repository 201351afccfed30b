/**
 * GET /v1/cpid/:cpid: one volunteer's credit across the projects of this deployment, found by
 * the cross-project id each project sent with PUT users (BOINC's exported cpid: md5 of the
 * internal cross_project_id followed by the email address; the email never comes here).
 * Hosts whose host_cpid matches are listed too. Users who opted out of stats export are left
 * out, as BOINC's export leaves them (and their hosts) out.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { and, asc, eq, or, isNull } from "drizzle-orm";
import { sumRecentAverages } from "../../credit/cross-project-totals";
import { decayedRecentAverage } from "../../credit/recent-average";
import { hosts, projects, users } from "../../db/schema";
import { inEachProjectDatabase } from "../../db/project-db";
import type { AppEnv } from "../../env";
import { ApiError } from "../../http/errors";
import { serverNow } from "../common";
import { route } from "./cpid.routes";

/** Rows merged from several databases, ordered as one query would: by project slug, then id. */
const bySlugThenId = {
  compare: (slugA: string, idA: number, slugB: string, idB: number) => (slugA < slugB ? -1 : slugA > slugB ? 1 : idA - idB),
};

export function mountCpid(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const { cpid } = c.req.valid("param");
    const exported = or(isNull(users.statsExport), eq(users.statsExport, true));
    // Two plain queries, not a db.batch: a batch returns rows as objects, and the joined
    // tables' equal column names (id, name) would overwrite each other.
    // Every database that holds projects: a cpid's projects may live in any of them. One that
    // fails is logged and left out; the others are answered.
    const { values: perDatabase } = await inEachProjectDatabase(c.env, "GET /v1/cpid", (db) => Promise.all([
      db
        .select({ p: projects, u: users })
        .from(users)
        .innerJoin(projects, eq(projects.id, users.projectId))
        .where(and(eq(users.cpid, cpid), eq(users.statsExport, true)))
        .orderBy(asc(projects.slug), asc(users.id)),
      db
        .select({ slug: projects.slug, h: hosts })
        .from(hosts)
        .innerJoin(projects, eq(projects.id, hosts.projectId))
        .leftJoin(users, and(eq(users.projectId, hosts.projectId), eq(users.id, hosts.userId)))
        .where(and(eq(hosts.hostCpid, cpid), exported))
        .orderBy(asc(projects.slug), asc(hosts.id)),
    ]));
    const userRows = perDatabase.flatMap(([u]) => u).sort((a, b) => bySlugThenId.compare(a.p.slug, a.u.id, b.p.slug, b.u.id));
    const hostRows = perDatabase.flatMap(([, h]) => h).sort((a, b) => bySlugThenId.compare(a.slug, a.h.id, b.slug, b.h.id));
    if (userRows.length === 0 && hostRows.length === 0) throw new ApiError(404, "not_found", `no user or host with cpid ${cpid}`);
    const asOf = serverNow();
    const credit = (r: typeof users.$inferSelect | typeof hosts.$inferSelect) => ({
      total_credit: r.totalCredit,
      expavg_credit: r.expavgCredit,
      expavg_time: r.expavgTime,
      recent_average_credit: decayedRecentAverage(r, asOf),
    });
    const totals = sumRecentAverages(userRows.map((r) => r.u), asOf);
    return c.json(
      {
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
      },
      200,
    );
  });
}
