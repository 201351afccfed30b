/** Admin: create an account manager and its token (shown once, stored hashed). */
import { OpenAPIHono } from "@hono/zod-openapi";
import { isPrimaryKeyConflict } from "../../db/batch";
import { accountManagers } from "../../db/schema";
import type { AppEnv } from "../../env";
import { ApiError } from "../../http/errors";
import { newAccountManagerToken, sha256Hex } from "../../http/tokens";
import { serverNow } from "../common";
import { createRouteDef } from "./account-managers.routes";

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
