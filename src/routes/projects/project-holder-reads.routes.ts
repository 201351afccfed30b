import { access } from "../access";
import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { SlugParams } from "../common";
import { HolderReadsSchema, SetHolderReadsSchema } from "./project-holder-reads.schemas";

const path = "/v1/projects/{slug}/holder-reads";

const ok = { description: "Where the project's holders are read from", content: { "application/json": { schema: HolderReadsSchema } } };

export const getRoute = createRoute({
  method: "get",
  path,
  tags: ["Admin"],
  summary: "Where public reads of the project's hosts, users and teams come from",
  ...access("projectTokenOrAdmin"),
  request: { params: SlugParams },
  responses: { 200: ok, ...errorResponses(401, 403, 404, 429, 503) },
});

export const putRoute = createRoute({
  method: "put",
  path,
  tags: ["Admin"],
  summary: "Operator: read the project's holders from KV snapshots or live from D1",
  description:
    "Takes effect within a minute (each isolate looks the setting up again after a minute). Turning snapshots back on serves no KV snapshot taken before that moment: a holder is read from D1 until the cron has written it again. Setting the current value changes nothing.",
  ...access("adminForProject"),
  request: { params: SlugParams, body: { required: true, content: { "application/json": { schema: SetHolderReadsSchema } } } },
  responses: { 200: ok, ...errorResponses(400, 401, 404, 429, 503) },
});
