import { and, asc, eq, sql } from "drizzle-orm";
import { hosts, projects, users, usersNow } from "../../db/schema";
import { inEachProjectDatabase } from "../../db/project-db";
import type { Env } from "../../env";
import { type CpidCursor, type CpidPosition, MAX_CPID_ROWS } from "./cpid.schemas";

/** Where a list starts: before every (project id, id), both positive. */
const START: CpidPosition = [0, 0];

/** A holder's columns an answer shows (one object per table: drizzle types each by its table). */
const shownUser = {
  projectId: usersNow.projectId,
  id: usersNow.id,
  name: usersNow.name,
  totalCredit: usersNow.totalCredit,
  expavgCredit: usersNow.expavgCredit,
  expavgTime: usersNow.expavgTime,
};
const shownHost = {
  projectId: hosts.projectId,
  id: hosts.id,
  name: hosts.name,
  totalCredit: hosts.totalCredit,
  expavgCredit: hosts.expavgCredit,
  expavgTime: hosts.expavgTime,
};

const byPosition = (a: CpidPosition, b: CpidPosition) => a[0] - b[0] || a[1] - b[1];

/**
 * One page of a list read from every database: the first MAX_CPID_ROWS positions after
 * `after`, in (project id, id) order, and where the next page starts (null: none). Project ids
 * come from the registry, so a (project id, id) is in one database only and the order is one
 * across databases. Each database reads at most MAX_CPID_ROWS + 1 rows.
 */
function window<R>(perDatabase: R[][], position: (row: R) => CpidPosition): { rows: R[]; next: CpidPosition | null } {
  const merged = perDatabase.flat().sort((a, b) => byPosition(position(a), position(b)));
  const rows = merged.slice(0, MAX_CPID_ROWS);
  return { rows, next: merged.length > MAX_CPID_ROWS ? position(rows.at(-1)!) : null };
}

/**
 * The users and hosts with this cpid after the cursor's positions (docs/exports.md#volunteer-totals-by-cpid):
 * each list's next MAX_CPID_ROWS rows in the cpid index's order, of which those whose owner
 * consents to stats export are shown. The limit applies to the rows read, shown or not, so
 * opted-out rows cannot make a read long; the next cursor starts after the last row read.
 */
export async function loadCpidRows(env: Env, cpid: string, cursor: CpidCursor = { accounts: START, hosts: START }) {
  const after = (table: typeof usersNow | typeof hosts, p: CpidPosition) => sql`(${table.projectId}, ${table.id}) > (${p[0]}, ${p[1]})`;
  // Only the columns an answer shows, each under its own name (projects.name and users.name
  // would otherwise share one). Every database that holds projects: a cpid's projects may live
  // in any of them. One that fails is logged and left out; the others are answered. Ordered
  // by the index's own order (project id, id) so that the limit stops the read.
  const { values: perDatabase, failed } = await inEachProjectDatabase(env, "GET /v1/cpid", (db) =>
    Promise.all([
      cursor.accounts === null
        ? []
        : db
            .select({
              ...shownUser,
              slug: projects.slug,
              projectName: sql<string>`${projects.name}`.as("project_name"),
              url: projects.url,
              statsExport: usersNow.statsExport,
            })
            .from(usersNow)
            .innerJoin(projects, eq(projects.id, usersNow.projectId))
            .where(and(eq(usersNow.cpid, cpid), after(usersNow, cursor.accounts)))
            .orderBy(asc(usersNow.projectId), asc(usersNow.id))
            .limit(MAX_CPID_ROWS + 1),
      cursor.hosts === null
        ? []
        : db
            .select({ ...shownHost, slug: projects.slug, ownerExports: users.statsExport })
            .from(hosts)
            .innerJoin(projects, eq(projects.id, hosts.projectId))
            .leftJoin(users, and(eq(users.projectId, hosts.projectId), eq(users.id, hosts.userId)))
            .where(and(eq(hosts.hostCpid, cpid), after(hosts, cursor.hosts)))
            .orderBy(asc(hosts.projectId), asc(hosts.id))
            .limit(MAX_CPID_ROWS + 1),
    ] as const),
  );
  const accounts = window(
    perDatabase.map(([u]) => u),
    (r) => [r.projectId, r.id],
  );
  const hostRows = window(
    perDatabase.map(([, h]) => h),
    (r) => [r.projectId, r.id],
  );
  return {
    // Users who opted out are left out, with their hosts (a host without a known owner is shown).
    userRows: accounts.rows.filter((r) => r.statsExport),
    hostRows: hostRows.rows.filter((r) => r.ownerExports !== false),
    next: { accounts: accounts.next, hosts: hostRows.next },
    /** False when a database failed and was left out. */
    complete: failed.length === 0,
  };
}
