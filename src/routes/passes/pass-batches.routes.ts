import { access } from "../access";
import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { SlugParams } from "../common";
import { PassBatchRequestSchema, PassBatchResponseSchema } from "./pass-batches.schemas";

export const postPassBatchRoute = createRoute({
  method: "post",
  path: "/v1/projects/{slug}/pass-batches",
  tags: ["Validation"],
  summary: "Post several validator passes in one request, each with its own `now`",
  description:
    "The passes are applied one after another in the order given, each exactly as `POST /passes` applies it: its " +
    "own `now`, atomic, idempotent. Every pass's shape and times are checked before any is applied (a 400 or 422 " +
    "writes nothing). If a pass is refused by what is stored (404, 409, 410, 422 `app_mismatch`), the passes before " +
    "it stay applied and it and the passes after it are not: the error's `issues` paths start with `passes[k]`, " +
    "naming the pass, and posting the same batch again replays the applied passes and goes on. For backfills: " +
    "a client posting one pass per second of history sends many seconds in one round trip.",
  ...access("projectToken"),
  request: {
    params: SlugParams,
    body: { required: true, content: { "application/json": { schema: PassBatchRequestSchema } } },
  },
  responses: {
    200: { description: "Every pass's answer, in order", content: { "application/json": { schema: PassBatchResponseSchema } } },
    ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 422),
  },
});
