import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { kvDirty, projectTokens, projects } from "../../db/schema";
import type { AppEnv } from "../../env";
import { requireAdmin } from "../../http/auth";
import { ApiError, errorResponses } from "../../http/errors";
import { newProjectToken, sha256Hex } from "../../http/tokens";
import { SlugSchema, serverNow } from "../common";
import { DEFAULT_RESULT_RETENTION_DAYS } from "../../credit/constants";
import { isPrimaryKeyConflict } from "../../db/batch";
import { PROJECT_SUBJECT, newMark } from "../../db/read-model-writes";

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
  security: [{ adminToken: [] }],
  request: { body: { required: true, content: { "application/json": { schema: CreateProjectSchema } } } },
  responses: {
    201: { description: "Created", content: { "application/json": { schema: CreatedProjectSchema } } },
    ...errorResponses(400, 401, 409, 503),
  },
});

export function mountProjects(app: OpenAPIHono<AppEnv>): void {
  app.use("/v1/projects", async (c, next) => (c.req.method === "POST" ? requireAdmin(c, next) : next()));
  app.openapi(createProjectRoute, async (c) => {
    const body = c.req.valid("json");
    const token = newProjectToken();
    const now = serverNow();
    try {
      // The project, its first token and its KV mark in one atomic batch: never a project
      // without a token, and a failure part-way leaves nothing to conflict with on a retry.
      const db = c.var.db;
      await db.batch([
        db
          .insert(projects)
          .values({
            slug: body.slug,
            name: body.name,
            url: body.url ?? null,
            createdAt: now,
            // The project's RAC clock starts at its creation, like a host's or a user's.
            expavgTime: now,
            ...(body.result_retention_days === undefined ? {} : { resultRetentionDays: body.result_retention_days }),
          }),
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
        // The cron publishes the new project (the public list of projects, its own snapshot).
        db.insert(kvDirty).select(
          db
            .select({
              projectId: projects.id,
              subject: sql<typeof PROJECT_SUBJECT.subject>`${PROJECT_SUBJECT.subject}`.as("subject"),
              entityId: sql<number>`${PROJECT_SUBJECT.id}`.as("entity_id"),
              mark: sql<number>`${newMark()}`.as("mark"),
            })
            .from(projects)
            .where(eq(projects.slug, body.slug)),
        ),
      ]);
    } catch (e) {
      if (isPrimaryKeyConflict(e)) throw new ApiError(409, "conflict", `project '${body.slug}' already exists`);
      throw e;
    }
    return c.json({ slug: body.slug, token }, 201);
  });
}
