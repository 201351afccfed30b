import { createRouter } from "../../http/router";
import { resolveNow } from "../common";
import { postPassBatchRoute } from "./pass-batches.routes";
import { ingestPassBatch } from "./pass-batches.service";
import { postPassRoute } from "./passes.routes";
import { checkTimesAgainstNow, ingestPass } from "./passes.service";
import type { AppRouteHandler } from "../route-handler";

const postPassBatchHandler: AppRouteHandler<typeof postPassBatchRoute> = async (c) => {
  return c.json(await ingestPassBatch(c.var.db, c.var.project.id, c.req.valid("json")), 200);
};

const postPassHandler: AppRouteHandler<typeof postPassRoute> = async (c) => {
  const body = c.req.valid("json");
  const now = resolveNow(body.now);
  checkTimesAgainstNow(body, now);
  return c.json(await ingestPass(c.var.db, c.var.project.id, now, body), 200);
};

export const passesRouter = createRouter().openapi(postPassRoute, postPassHandler).openapi(postPassBatchRoute, postPassBatchHandler);
