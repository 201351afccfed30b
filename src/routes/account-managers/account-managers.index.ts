/** Admin: create an account manager and its token (shown once, stored hashed). */
import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { isPrimaryKeyConflict } from "../../db/batch";
import { accountManagers } from "../../db/schema";
import type { AppEnv } from "../../env";
import { ApiError, errorResponses } from "../../http/errors";
import { newAccountManagerToken, sha256Hex } from "../../http/tokens";
import { SlugSchema, serverNow } from "../common";

const CreateAccountManagerSchema = z
  .strictObject({ slug: SlugSchema.openapi({ example: "su" }), name: z.string().min(1).max(200) })
  .openapi("CreateAccountManager");

const CreatedAccountManagerSchema = z
  .object({
    slug: z.string(),
    token: z.string().openapi({ description: "The account manager's bearer token. Shown only this once; store it." }),
  })
  .openapi("CreatedAccountManager");

const createRouteDef = createRoute({
  method: "post",
  path: "/v1/account-managers",
  tags: ["Account managers"],
  summary: "Create an account manager and its token",
  ...access("admin"),
  request: { body: { required: true, content: { "application/json": { schema: CreateAccountManagerSchema } } } },
  responses: {
    201: { description: "Created", content: { "application/json": { schema: CreatedAccountManagerSchema } } },
    ...errorResponses(400, 401, 409, 503),
  },
});

export function mountAccountManagers(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createRouteDef, async (c) => {
    const body = c.req.valid("json");
    const token = newAccountManagerToken();
    try {
      await c.var.db.insert(accountManagers).values({
        slug: body.slug,
        name: body.name,
        tokenHash: await sha256Hex(token),
        createdAt: serverNow(),
      });
    } catch (e) {
      if (isPrimaryKeyConflict(e)) throw new ApiError(409, "conflict", `account manager '${body.slug}' already exists`);
      throw e;
    }
    return c.json({ slug: body.slug, token }, 201);
  });
}
