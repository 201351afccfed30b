import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { CpidParams, CpidSchema } from "./cpid.schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/cpid/{cpid}",
  tags: ["Cross-project"],
  summary: "A volunteer's credit summed across this deployment's projects, with a row per project",
  request: { params: CpidParams },
  responses: {
    200: { description: "Totals and the rows behind them", content: { "application/json": { schema: CpidSchema } } },
    ...errorResponses(400, 404),
  },
});
