import { access } from "../access";
import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { SlugParams } from "../common";
import { BulkHoldersRequestSchema, BulkHoldersResponseSchema, MAX_HOLDERS_PER_KIND } from "./holders-bulk.schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/projects/{slug}/holders",
  tags: ["Configuration"],
  summary: `Register up to ${MAX_HOLDERS_PER_KIND} hosts, users and teams each in one request`,
  description: "Each entry is what PUT /hosts/{id} (/users, /teams) takes, with its id. All are written, or none.",
  ...access("projectToken"),
  request: { params: SlugParams, body: { required: true, content: { "application/json": { schema: BulkHoldersRequestSchema } } } },
  responses: {
    200: { description: "Registered", content: { "application/json": { schema: BulkHoldersResponseSchema } } },
    ...errorResponses(400, 401, 403, 413, 415, 422),
  },
});
