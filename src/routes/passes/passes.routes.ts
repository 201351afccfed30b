import { access } from "../access";
import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { SlugParams } from "../common";
import { PassRequestSchema, PassResponseSchema } from "./passes.schemas";

export const postPassRoute = createRoute({
  method: "post",
  path: "/v1/projects/{slug}/passes",
  tags: ["Validation"],
  summary: "Post one validator pass: validated workunits in, granted credit out",
  description:
    "Workunits are handled in the order given, as one BOINC validator scan followed by one flush of " +
    "app-version statistics. Atomic: if anything is wrong, nothing is written. Idempotent: a result " +
    "with a final verdict is never processed again (re-posting it answers `replayed: true`).",
  ...access("projectToken"),
  request: {
    params: SlugParams,
    body: { required: true, content: { "application/json": { schema: PassRequestSchema } } },
  },
  responses: {
    200: { description: "The credit of every workunit and result", content: { "application/json": { schema: PassResponseSchema } } },
    ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 422),
  },
});
