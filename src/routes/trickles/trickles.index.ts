import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { resolveNow } from "../common";
import { ingestTrickles } from "./trickles.service";
import { postTricklesRoute } from "./trickles.routes";

export function mountTrickles(app: OpenAPIHono<AppEnv>): void {
  app.openapi(postTricklesRoute, async (c) => {
    const body = c.req.valid("json");
    const now = resolveNow(body.now);
    return c.json(await ingestTrickles(c.var.db, c.var.project.id, now, body), 200);
  });
}
