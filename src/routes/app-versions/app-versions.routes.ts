import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { NOT_MODIFIED } from "../../snapshots/store";
import { errorResponses } from "../../http/errors";
import { IdParam, SlugParams } from "../common";
import { AppVersionSchema, PutAppVersionSchema } from "./app-versions.schemas";

export const putRoute = createRoute({
  method: "put",
  path: "/v1/projects/{slug}/app-versions/{id}",
  tags: ["Configuration"],
  summary: "Register an app version (statistics start at zero and are kept on later PUTs)",
  ...access("projectToken"),
  request: {
    params: SlugParams.extend({ id: IdParam }),
    body: { required: true, content: { "application/json": { schema: PutAppVersionSchema } } },
  },
  responses: {
    200: { description: "The app version as stored", content: { "application/json": { schema: AppVersionSchema } } },
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export const listRoute = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/app-versions",
  tags: ["Statistics"],
  summary: "Every app version with its PFC statistics, scale and recent average credit",
  ...access("publicProject"),
  request: { params: SlugParams },
  responses: {
    200: {
      description: "App versions by id",
      content: { "application/json": { schema: z.object({ app_versions: z.array(AppVersionSchema) }) } },
    },
    ...NOT_MODIFIED,
    ...errorResponses(401, 403, 404),
  },
});
