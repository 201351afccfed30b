import { access } from "../access";
import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { SlugParams } from "../common";
import { AddHistoryDatabaseSchema, HistoryDatabasesSchema } from "./project-history-databases.schemas";

const path = "/v1/projects/{slug}/history-databases";

const ok = { description: "The project's history databases", content: { "application/json": { schema: HistoryDatabasesSchema } } };

export const getRoute = createRoute({
  method: "get",
  path,
  tags: ["Admin"],
  summary: "Where the project's daily history is kept",
  ...access("projectTokenOrAdmin"),
  request: { params: SlugParams },
  responses: { 200: ok, ...errorResponses(401, 403, 404, 429, 503) },
});

export const postRoute = createRoute({
  method: "post",
  path,
  tags: ["Admin"],
  summary: "Operator: add a history database (from the project's next day on)",
  description:
    "History buckets of the project's next day (on its own clock) and later go to this database; those before stay where they are. The binding must be a D1 database of this deployment with the migrations applied, other than the project's ledger and its current history databases.",
  ...access("adminForProject"),
  request: { params: SlugParams, body: { required: true, content: { "application/json": { schema: AddHistoryDatabaseSchema } } } },
  responses: { 200: ok, ...errorResponses(400, 401, 404, 409, 422, 429, 503) },
});
