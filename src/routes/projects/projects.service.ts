import { eq, sql } from "drizzle-orm";
import { isPrimaryKeyConflict } from "../../db/batch";
import type { Db } from "../../db/client";
import { storeHistoryDatabases } from "../../db/history-databases";
import { PROJECT_SUBJECT, markOne, markProjectBySlug } from "../../db/kv-marks";
import { projectDatabase } from "../../db/project-db";
import { type TokenScope, projectTokens, projects } from "../../db/schema";
import type { Env } from "../../env";
import { ApiError } from "../../http/errors";
import { sha256Hex } from "../../http/tokens";
import { snapshotsSinceFor } from "./project-holder-reads.service";
import type { CreateProject } from "./projects.schemas";

/**
 * The project's own row in its database (same id; `database` null: it lives there) and its KV
 * mark. Two databases cannot share a transaction: if this fails the registry rows are removed
 * again, so that a retry starts clean.
 */
async function placeInDatabase(registry: Db, home: Db, row: typeof projects.$inferInsert & { id: number }): Promise<void> {
  try {
    await home.batch([home.insert(projects).values({ ...row, database: null }), markOne(home, row.id, PROJECT_SUBJECT)]);
  } catch (e) {
    await registry.batch([
      registry.delete(projectTokens).where(eq(projectTokens.projectId, row.id)),
      registry.delete(projects).where(eq(projects.id, row.id)),
    ]);
    throw e;
  }
}

/** Creates the project with its first token (`token`, stored hashed) in the registry, and in database `binding` if one is named. */
export async function createProject(
  env: Env,
  db: Db,
  body: CreateProject,
  binding: string | null,
  token: string,
  now: number,
): Promise<void> {
  const row = {
    slug: body.slug,
    name: body.name,
    url: body.url ?? null,
    createdAt: now,
    // The project's RAC clock starts at its creation, like a host's or a user's.
    expavgTime: now,
    ...(body.result_retention_days === undefined ? {} : { resultRetentionDays: body.result_retention_days }),
    ...(body.daily_history_days === undefined ? {} : { dailyHistoryDays: body.daily_history_days }),
    historyDatabases: body.history_database === undefined ? null : storeHistoryDatabases([{ binding: body.history_database, from_day: 0 }]),
    // A new project has no KV key from before: every snapshot of it may be served (0).
    holderSnapshotsSince: snapshotsSinceFor(body.holder_reads ?? "snapshots", 0),
  };
  try {
    // The project, its first token and its KV mark in one atomic batch: never a project
    // without a token, and a failure part-way leaves nothing to conflict with on a retry.
    const [[created]] = await db.batch([
      db
        .insert(projects)
        .values({ ...row, database: binding })
        .returning({ id: projects.id }),
      db.insert(projectTokens).select(
        db
          .select({
            // Every column in table order (drizzle's insert…select); a NULL id is a new one.
            id: sql<number>`NULL`.as("id"),
            projectId: projects.id,
            tokenHash: sql<string>`${await sha256Hex(token)}`.as("token_hash"),
            createdAt: sql<number>`${now}`.as("created_at"),
            expiresAt: sql<number | null>`NULL`.as("expires_at"),
            // The first token manages the project (its settings, its tokens); the project mints 'ingest' ones for its validators.
            scope: sql<TokenScope>`${"manage" satisfies TokenScope}`.as("scope"),
          })
          .from(projects)
          .where(eq(projects.slug, body.slug)),
      ),
      // The cron publishes the new project (the public list of projects, its own snapshot);
      // a project in its own database is marked there, below.
      ...(binding !== null ? [] : [markProjectBySlug(db, body.slug)]),
    ]);
    if (binding !== null) await placeInDatabase(db, projectDatabase(env, binding), { ...row, id: created!.id });
  } catch (e) {
    if (isPrimaryKeyConflict(e))
      throw new ApiError(
        409,
        "conflict",
        `project '${body.slug}' already exists; for a new token for it, POST /v1/projects/${body.slug}/tokens with the admin token`,
      );
    throw e;
  }
}
