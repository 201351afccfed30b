import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { Params } from "./stats.schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/stats/{file}",
  tags: ["Credit"],
  summary: "BOINC db_dump-compatible stats export: user.gz, team.gz, host.gz, tables.xml (and .ndjson.gz siblings)",
  description:
    "The same XML element names and structure as BOINC's db_dump default spec, gzipped. Users who opted out " +
    "(stats_export false) and their hosts are left out. Generated daily; `X-Generated-At` says when. " +
    "404 until the first daily run.",
  ...access("publicProjectLedger"),
  request: { params: Params },
  responses: {
    200: {
      description: "The file",
      content: {
        "application/gzip": { schema: z.string().openapi({ format: "binary" }) },
        "application/xml": { schema: z.string() },
      },
    },
    304: { description: "Not modified since the ETag given in If-None-Match (a file served from KV)" },
    ...errorResponses(400, 404),
  },
});
