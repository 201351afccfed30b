import { count, eq, max, sql } from "drizzle-orm";
import { runBatch } from "../../db/batch";
import type { Db } from "../../db/client";
import { centralContributions, centralContributors } from "../../db/schema";
import { ApiError } from "../../http/errors";
import { sha256Hex } from "../../http/tokens";

/** Stores a contributor with its token's hash; answers its id. */
export async function createContributor(db: Db, name: string, url: string | null, token: string, now: number): Promise<number> {
  const [row] = await db
    .insert(centralContributors)
    .values({ name, url, tokenHash: await sha256Hex(token), createdAt: now })
    .returning({ id: centralContributors.id });
  return row!.id;
}

/** Every contributor, with its last report and how many projects and app versions it pushed. */
export function listContributors(db: Db) {
  const t = centralContributions;
  return db
    .select({
      c: centralContributors,
      lastReport: max(t.reportedAt),
      projects: sql<number>`count(DISTINCT ${t.project})`,
      versions: count(t.appVersionId),
    })
    .from(centralContributors)
    .leftJoin(t, eq(t.contributorId, centralContributors.id))
    .groupBy(centralContributors.id)
    .orderBy(centralContributors.id);
}

/** Revokes contributor `id` and drops what it pushed (404 if unknown). */
export async function deleteContributor(db: Db, id: number): Promise<void> {
  const [held] = await db.select({ id: centralContributors.id }).from(centralContributors).where(eq(centralContributors.id, id));
  if (!held) throw new ApiError(404, "not_found", `no contributor ${id}`);
  await runBatch(db, [
    sql`DELETE FROM ${centralContributions} WHERE contributor_id = ${id}`,
    sql`DELETE FROM ${centralContributors} WHERE id = ${id}`,
  ]);
}
