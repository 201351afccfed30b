import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { projectTokens, projects } from "../../db/schema";
import type { AppEnv } from "../../env";
import { ApiError, errorResponses } from "../../http/errors";
import { newProjectToken, sha256Hex } from "../../http/tokens";
import { SlugSchema, serverNow } from "../common";
import {
  DEFAULT_DAILY_HISTORY_DAYS,
  DEFAULT_RESULT_RETENTION_DAYS,
  MAX_DAILY_HISTORY_DAYS,
  MIN_DAILY_HISTORY_DAYS,
} from "../../credit/constants";
import { isPrimaryKeyConflict } from "../../db/batch";
import type { Db } from "../../db/client";
import { DEFAULT_BINDING, databaseBindings, projectDatabase } from "../../db/project-db";
import { PROJECT_SUBJECT, markOne, markProjectBySlug } from "../../db/kv-marks";
import { storeHistoryDatabases } from "../../db/history-databases";
import { BindingNameSchema, checkHistoryBinding, checkMigrated } from "./history-binding";
import { HolderReadsField, snapshotsSinceFor } from "./projects.holder-reads";

const CreateProjectSchema = z
  .strictObject({
    slug: SlugSchema,
    name: z.string().min(1).max(200),
    url: z.url().optional(),
    result_retention_days: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .optional()
      .openapi({
        description: `Days decided results are kept (the idempotency window; default ${DEFAULT_RESULT_RETENTION_DAYS}). A pass naming a result sent before the purged range is refused with 410.`,
      }),
    daily_history_days: z
      .number()
      .int()
      .min(MIN_DAILY_HISTORY_DAYS)
      .max(MAX_DAILY_HISTORY_DAYS)
      .optional()
      .openapi({
        description: `Days daily credit history is kept as days (default ${DEFAULT_DAILY_HISTORY_DAYS}); older whole months roll up into monthly buckets.`,
      }),
    database: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, "a D1 binding name")
      .optional()
      .openapi({
        description: "The D1 binding (wrangler.jsonc d1_databases) that holds the project's rows: for a large project. Default: the default database.",
        example: "DB_LARGE",
      }),
    history_database: BindingNameSchema.optional().openapi({
      description:
        "A D1 binding to keep the project's daily history (and its monthly roll-up) in, apart from its ledger, so the ledger stays bounded by the result window; add more later with POST /v1/projects/{slug}/history-databases. Default: history stays with the ledger.",
      example: "DB_HISTORY_1",
    }),
    holder_reads: HolderReadsField.optional().openapi({
      description: "Where public reads of its hosts, users and teams come from (default snapshots); change it later with PUT /v1/projects/{slug}/holder-reads.",
    }),
  })
  .openapi("CreateProject");

const CreatedProjectSchema = z
  .object({
    slug: z.string(),
    token: z.string().openapi({ description: "The project's bearer token. Shown only this once; store it." }),
  })
  .openapi("CreatedProject");

const createProjectRoute = createRoute({
  method: "post",
  path: "/v1/projects",
  tags: ["Admin"],
  summary: "Create a project and its token",
  ...access("admin"),
  request: { body: { required: true, content: { "application/json": { schema: CreateProjectSchema } } } },
  responses: {
    201: { description: "Created", content: { "application/json": { schema: CreatedProjectSchema } } },
    ...errorResponses(400, 401, 409, 422, 503),
  },
});

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
