import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { projectTokens, projects } from "../../db/schema";
import type { AppEnv } from "../../env";
import { requireAdmin } from "../../http/auth";
import { ApiError, errorResponses } from "../../http/errors";
import { newProjectToken, sha256Hex } from "../../http/tokens";
import { SlugSchema, serverNow } from "../common";
import { isPrimaryKeyConflict } from "../../db/batch";
import { PROJECT_SUBJECT, markOneDirty } from "../../db/read-model-writes";

const CreateProjectSchema = z
  .strictObject({
    slug: SlugSchema,
    name: z.string().min(1).max(200),
    url: z.url().optional(),
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
    let created: { id: number } | undefined;
    try {
      // The project and its first token in one atomic batch: never a project without a token.
      const db = c.var.db;
      const [rows] = await db.batch([
        db
          .insert(projects)
          .values({
            slug: body.slug,
            name: body.name,
            url: body.url ?? null,
            createdAt: now,
            // The project's RAC clock starts at its creation, like a host's or a user's.
            expavgTime: now,
          })
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
            })
            .from(projects)
            .where(eq(projects.slug, body.slug)),
        ),
      ]);
      created = rows[0];
    } catch (e) {
      if (isPrimaryKeyConflict(e)) throw new ApiError(409, "conflict", `project '${body.slug}' already exists`);
      throw e;
    }
    // The cron publishes the new project (the public list of projects, its own snapshot).
    // Were this mark lost, the project's first registration or pass would mark it again.
    await markOneDirty(c.var.db, created!.id, PROJECT_SUBJECT);
    return c.json({ slug: body.slug, token }, 201);
  });
}
