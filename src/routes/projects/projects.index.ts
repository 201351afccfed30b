import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { projects } from "../../db/schema";
import type { AppEnv } from "../../env";
import { requireAdmin } from "../../http/auth";
import { ApiError, errorResponses } from "../../http/errors";
import { newProjectToken, sha256Hex } from "../../http/tokens";
import { SlugSchema, serverNow } from "../common";
import { isPrimaryKeyConflict } from "../../db/batch";

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
    try {
      await c.var.db.insert(projects).values({
        slug: body.slug,
        name: body.name,
        url: body.url ?? null,
        tokenHash: await sha256Hex(token),
        createdAt: now,
        // The project's RAC clock starts at its creation, like a host's or a user's.
        expavgTime: now,
      });
    } catch (e) {
      if (isPrimaryKeyConflict(e)) throw new ApiError(409, "conflict", `project '${body.slug}' already exists`);
      throw e;
    }
    return c.json({ slug: body.slug, token }, 201);
  });
}
