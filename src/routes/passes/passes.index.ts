import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { requireProjectToken } from "../../http/auth";
import { resolveNow } from "../common";
import { postPassRoute } from "./passes.routes";
import { checkTimesAgainstNow, ingestPass } from "./passes.service";

export function mountPasses(app: OpenAPIHono<AppEnv>): void {
  app.use("/v1/projects/:slug/passes", requireProjectToken);
  app.openapi(postPassRoute, async (c) => {
    const body = c.req.valid("json");
    const now = resolveNow(body.now);
    checkTimesAgainstNow(body, now);
    return c.json(await ingestPass(c.var.db, c.var.project.id, now, body), 200);
  });
}
