import { access } from "../access";
import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { SlugParams } from "../common";
import { TrickleRequestSchema, TrickleResponseSchema } from "./trickles.schemas";

export const postTricklesRoute = createRoute({
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
