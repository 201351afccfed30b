/** Admin: create an account manager and its token (shown once, stored hashed). */
import { createRouter } from "../../http/router";
import { newAccountManagerToken } from "../../http/tokens";
import { serverNow } from "../common";
import { createRouteDef } from "./account-managers.routes";
import { createAccountManager } from "./account-managers.service";
import type { AppRouteHandler } from "../route-handler";

const createRouteDefHandler: AppRouteHandler<typeof createRouteDef> = async (c) => {
  const body = c.req.valid("json");
  const token = newAccountManagerToken();
  await createAccountManager(c.var.db, body.slug, body.name, token, serverNow());
  return c.json({ slug: body.slug, token }, 201);
};

export const accountManagersRouter = createRouter().openapi(createRouteDef, createRouteDefHandler);
