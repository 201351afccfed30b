import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { NOT_MODIFIED } from "../../snapshots/store";
import { SlugParams } from "../common";
import { HistoryQuery, HistorySchema } from "../history/history.schemas";
import { ProjectSchema } from "./project-reads.schemas";

const asOf = { as_of: z.number(), snapshot_time: z.number().openapi({ description: "When this was read from the ledger" }) };

export const listRoute = createRoute({
  method: "get",
  path: "/v1/projects",
  tags: ["Credit"],
  summary: "Every project of this deployment, with its totals",
  responses: {
    200: {
      description: "Projects by slug",
      content: { "application/json": { schema: z.object({ projects: z.array(ProjectSchema), ...asOf }) } },
    },
    ...NOT_MODIFIED,
  },
});

export const oneRoute = createRoute({
  method: "get",
  path: "/v1/projects/{slug}",
  tags: ["Credit"],
  summary: "A project's totals and counts",
  ...access("publicProject"),
  request: { params: SlugParams },
  responses: {
    200: { description: "The project", content: { "application/json": { schema: ProjectSchema.extend(asOf) } } },
    ...NOT_MODIFIED,
    ...errorResponses(401, 403, 404),
  },
});

export const historyRoute = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/history",
  tags: ["Credit"],
  summary: "The project's daily credit (UTC days): granted that day, total and RAC at its end",
  ...access("publicProject"),
  request: { params: SlugParams, query: HistoryQuery },
  responses: {
    200: { description: "One entry per day, oldest first", content: { "application/json": { schema: HistorySchema } } },
    ...NOT_MODIFIED,
    ...errorResponses(400, 401, 403, 404),
  },
});
