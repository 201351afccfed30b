import { access } from "../access";
import { createRoute } from "@hono/zod-openapi";
import { NOT_MODIFIED } from "../../snapshots/store";
import { errorResponses } from "../../http/errors";
import { SlugParams } from "../common";
import { AppListSchema, AppNameParams, AppSchema, INGEST_APP_FIELDS, PutAppSchema } from "./apps.schemas";

export const putAppRoute = createRoute({
  method: "put",
  path: "/v1/projects/{slug}/apps/{app}",
  tags: ["Configuration"],
  summary: "Register an app or change its settings",
  description:
    "A new app starts with min_avg_pfc = 1 (BOINC's schema default). Omitted fields keep their value. " +
    `An 'ingest' token registers an app with ${INGEST_APP_FIELDS.join(" and ")} only (as the bridge does); ` +
    "any other field is a setting and needs a 'manage' token (403 insufficient_scope, nothing written).",
  ...access("projectToken"),
  request: { params: AppNameParams, body: { required: true, content: { "application/json": { schema: PutAppSchema } } } },
  responses: {
    200: { description: "The app as stored", content: { "application/json": { schema: AppSchema } } },
    ...errorResponses(400, 401, 403, 422),
  },
});

export const listAppsRoute = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/apps",
  tags: ["Statistics"],
  summary: "The project's apps with their credit settings and min_avg_pfc",
  ...access("publicProject"),
  request: { params: SlugParams },
  responses: {
    200: { description: "Apps in registration order", content: { "application/json": { schema: AppListSchema } } },
    ...NOT_MODIFIED,
    ...errorResponses(401, 403, 404),
  },
});
