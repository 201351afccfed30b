import { createRouter } from "../../http/router";
import { resolveNow } from "../common";
import { ingestTrickles } from "./trickles.service";
import { postTricklesRoute } from "./trickles.routes";
import type { AppRouteHandler } from "../route-handler";

const postTricklesHandler: AppRouteHandler<typeof postTricklesRoute> = async (c) => {
  const body = c.req.valid("json");
  const now = resolveNow(body.now);
  return c.json(await ingestTrickles(c.var.db, c.var.project.id, now, body), 200);
};

export const tricklesRouter = createRouter().openapi(postTricklesRoute, postTricklesHandler);
