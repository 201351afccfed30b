import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { NOT_MODIFIED } from "../../snapshots/store";
import { CpidParams, CpidQuery, CpidSchema } from "./cpid.schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/cpid/{cpid}",
  tags: ["Cross-project"],
  summary: "A volunteer's credit summed across this deployment's projects, with a row per project",
  request: { params: CpidParams, query: CpidQuery },
  responses: {
    200: { description: "Totals and the rows behind them", content: { "application/json": { schema: CpidSchema } } },
    ...NOT_MODIFIED,
    ...errorResponses(400, 404),
  },
});
