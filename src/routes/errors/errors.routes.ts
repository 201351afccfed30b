import { access } from "../access";
import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { SlugParams } from "../common";
import { ErrorsRequestSchema, ErrorsResponseSchema } from "./errors.schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/projects/{slug}/errors",
  tags: ["Validation"],
  summary: "Report results that errored, timed out or were aborted",
  ...access("projectToken"),
  request: {
    params: SlugParams,
    body: { required: true, content: { "application/json": { schema: ErrorsRequestSchema } } },
  },
  responses: {
    200: { description: "What each outcome changed", content: { "application/json": { schema: ErrorsResponseSchema } } },
    ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 422),
  },
});
