import { and, asc, eq, or, isNull } from "drizzle-orm";
import { hosts, projects, users } from "../../db/schema";
import { inEachProjectDatabase } from "../../db/project-db";
import type { Env } from "../../env";
import { MAX_CPID_ROWS } from "./cpid.schemas";

/** Rows merged from several databases, ordered as one query would: by project slug, then id. */
const bySlugThenId = {
  compare: (slugA: string, idA: number, slugB: string, idB: number) => (slugA < slugB ? -1 : slugA > slugB ? 1 : idA - idB),
};

/**
 * The users and hosts with this cpid in every database that holds projects, by project slug
 * then id, at most MAX_CPID_ROWS of each; `more_*` when some were left out.
 */
export async function loadCpidRows(env: Env, cpid: string) {
  const exported = or(isNull(users.statsExport), eq(users.statsExport, true));
  // Two plain queries, not a db.batch: a batch returns rows as objects, and the joined
  // tables' equal column names (id, name) would overwrite each other.
  // Every database that holds projects: a cpid's projects may live in any of them. One that
  // fails is logged and left out; the others are answered. Ordered by the index's own order
  // (project id, id) so that the limit stops the read.
  const { values: perDatabase } = await inEachProjectDatabase(env, "GET /v1/cpid", (db) =>
    Promise.all([
      db
        .select({ p: projects, u: users })
        .from(users)
        .innerJoin(projects, eq(projects.id, users.projectId))
        .where(and(eq(users.cpid, cpid), eq(users.statsExport, true)))
        .orderBy(asc(users.projectId), asc(users.id))
        .limit(MAX_CPID_ROWS + 1),
      db
        .select({ slug: projects.slug, h: hosts })
        .from(hosts)
        .innerJoin(projects, eq(projects.id, hosts.projectId))
        .leftJoin(users, and(eq(users.projectId, hosts.projectId), eq(users.id, hosts.userId)))
        .where(and(eq(hosts.hostCpid, cpid), exported))
        .orderBy(asc(hosts.projectId), asc(hosts.id))
        .limit(MAX_CPID_ROWS + 1),
    ]),
  );
  const userRows = perDatabase.flatMap(([u]) => u).sort((a, b) => bySlugThenId.compare(a.p.slug, a.u.id, b.p.slug, b.u.id));
  const hostRows = perDatabase.flatMap(([, h]) => h).sort((a, b) => bySlugThenId.compare(a.slug, a.h.id, b.slug, b.h.id));
  return {
    userRows: userRows.slice(0, MAX_CPID_ROWS),
    hostRows: hostRows.slice(0, MAX_CPID_ROWS),
    moreProjects: userRows.length > MAX_CPID_ROWS,
    moreHosts: hostRows.length > MAX_CPID_ROWS,
  };
}
