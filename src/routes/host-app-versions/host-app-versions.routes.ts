import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { SlugParams, idText } from "../common";
import { HostAppVersionSchema } from "./host-app-versions.schemas";

export const listRoute = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/host-app-versions",
  tags: ["Statistics"],
  summary: "A host's per-app-version statistics (BOINC's host_app_version rows)",
  ...access("projectToken"),
  request: {
    params: SlugParams,
    query: z.object({
      host_id: idText("a positive integer host id").openapi({ param: { name: "host_id", in: "query", required: true }, example: "10" }),
    }),
  },
  responses: {
    200: {
      description: "The host's rows",
      content: { "application/json": { schema: z.object({ host_app_versions: z.array(HostAppVersionSchema) }) } },
    },
    ...errorResponses(400, 401, 403),
  },
});
