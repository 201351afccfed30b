import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { SlugParams } from "../common";
import { AuditEntrySchema, AuditQuery } from "./audit.schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/audit",
  tags: ["Tokens"],
  summary: "The project's audit log: who wrote what, when, with which request id (newest first)",
  ...access("projectToken"),
  request: { params: SlugParams, query: AuditQuery },
  responses: {
    200: {
      description: "A page of entries",
      content: {
        "application/json": { schema: z.object({ entries: z.array(AuditEntrySchema), next_cursor: z.string().nullable() }) },
      },
    },
    ...errorResponses(400, 401, 403, 429),
  },
});
