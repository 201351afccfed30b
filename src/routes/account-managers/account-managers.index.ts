/** Admin: create an account manager and its token (shown once, stored hashed). */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { newAccountManagerToken } from "../../http/tokens";
import { serverNow } from "../common";
import { createRouteDef } from "./account-managers.routes";
import { createAccountManager } from "./account-managers.service";

export function mountAccountManagers(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createRouteDef, async (c) => {
    const body = c.req.valid("json");
    const token = newAccountManagerToken();
    await createAccountManager(c.var.db, body.slug, body.name, token, serverNow());
    return c.json({ slug: body.slug, token }, 201);
  });
}
