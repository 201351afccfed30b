import { access } from "../access";
import { OpenAPIHono, createRoute } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { errorResponses } from "../../http/errors";
import { SlugParams, resolveNow } from "../common";
import { TrickleRequestSchema, TrickleResponseSchema } from "./trickles.schemas";
import { ingestTrickles } from "./trickles.service";

const postTricklesRoute = createRoute({
  method: "post",
  path: "/v1/projects/{slug}/trickles",
  tags: ["Validation"],
  summary: "Pay trickle-up messages: runtime × the host's FLOPS, as BOINC's trickle_credit handler",
  description:
    "Each message is paid once: re-posting it answers its stored payment (`replayed: true`); the same id with other " +
    "content is a 409. Atomic: if any message cannot be paid, nothing is written.",
  ...access("projectToken"),
  request: {
    params: SlugParams,
    body: { required: true, content: { "application/json": { schema: TrickleRequestSchema } } },
  },
  responses: {
    200: { description: "The credit of every message, and why", content: { "application/json": { schema: TrickleResponseSchema } } },
    ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 422),
  },
});

export function mountTrickles(app: OpenAPIHono<AppEnv>): void {
  app.openapi(postTricklesRoute, async (c) => {
    const body = c.req.valid("json");
    const now = resolveNow(body.now);
    return c.json(await ingestTrickles(c.var.db, c.var.project.id, now, body), 200);
  });
}
