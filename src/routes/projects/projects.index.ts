import { OpenAPIHono } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { projectTokens, projects } from "../../db/schema";
import type { AppEnv } from "../../env";
import { ApiError } from "../../http/errors";
import { newProjectToken, sha256Hex } from "../../http/tokens";
import { serverNow } from "../common";
import { isPrimaryKeyConflict } from "../../db/batch";
import type { Db } from "../../db/client";
import { DEFAULT_BINDING, databaseBindings, projectDatabase } from "../../db/project-db";
import { PROJECT_SUBJECT, markOne, markProjectBySlug } from "../../db/kv-marks";
import { storeHistoryDatabases } from "../../db/history-databases";
import { checkHistoryBinding, checkMigrated } from "./history-binding";
import { snapshotsSinceFor } from "./project-holder-reads.service";
import { createProjectRoute } from "./projects.routes";

/**
 * The project's own row in its database (same id; `database` null: it lives there) and its KV
 * mark. Two databases cannot share a transaction: if this fails the registry rows are removed
 * again, so that a retry starts clean.
 */
async function placeInDatabase(registry: Db, home: Db, row: typeof projects.$inferInsert & { id: number }): Promise<void> {
  try {
    await home.batch([
      home.insert(projects).values({ ...row, database: null }),
      markOne(home, row.id, PROJECT_SUBJECT),
    ]);
  } catch (e) {
    await registry.batch([
      registry.delete(projectTokens).where(eq(projectTokens.projectId, row.id)),
      registry.delete(projects).where(eq(projects.id, row.id)),
    ]);
    throw e;
  }
}

export function mountProjects(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createProjectRoute, async (c) => {
    const body = c.req.valid("json");
    const token = newProjectToken();
    const now = serverNow();
    const binding = body.database === undefined || body.database === DEFAULT_BINDING ? null : body.database;
    if (binding !== null && !databaseBindings(c.env).includes(binding)) {
      throw new ApiError(422, "unknown_database", `no D1 binding '${binding}' on this deployment (wrangler.jsonc d1_databases)`, [
        { path: "database", message: `one of ${databaseBindings(c.env).join(", ")}` },
      ]);
    }
    if (body.history_database !== undefined) {
      checkHistoryBinding(c.env, body.history_database, binding, [], "history_database");
      await checkMigrated(c.env, body.history_database, "history_database");
    }
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
      const db = c.var.registry;
      const [[created]] = await db.batch([
        db.insert(projects).values({ ...row, database: binding }).returning({ id: projects.id }),
        db.insert(projectTokens).select(
          db
            .select({
              // Every column in table order (drizzle's insert…select); a NULL id is a new one.
              id: sql<number>`NULL`.as("id"),
              projectId: projects.id,
              tokenHash: sql<string>`${await sha256Hex(token)}`.as("token_hash"),
              createdAt: sql<number>`${now}`.as("created_at"),
              expiresAt: sql<number | null>`NULL`.as("expires_at"),
            })
            .from(projects)
            .where(eq(projects.slug, body.slug)),
        ),
        // The cron publishes the new project (the public list of projects, its own snapshot);
        // a project in its own database is marked there, below.
        ...(binding !== null ? [] : [markProjectBySlug(db, body.slug)]),
      ]);
      if (binding !== null) await placeInDatabase(db, projectDatabase(c.env, binding), { ...row, id: created!.id });
    } catch (e) {
      if (isPrimaryKeyConflict(e)) throw new ApiError(409, "conflict", `project '${body.slug}' already exists`);
      throw e;
    }
    return c.json({ slug: body.slug, token }, 201);
  });
}
