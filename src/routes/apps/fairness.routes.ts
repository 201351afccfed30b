import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { AppNameParams } from "./apps.schemas";
import { FairnessReportSchema } from "./fairness.schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/apps/{app}/fairness",
  tags: ["Statistics"],
  summary: "Hosts whose BOINC credit most exceeds their fair credit over the last 30 days",
  description:
    "Ordered by boinc_credit / fair_credit, highest first (a host the fair policy pays nothing comes first). " +
    "Shows who games CreditNew, before and after a switch of credit_policy.",
  ...access("projectToken"),
  request: {
    params: AppNameParams,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(1000).default(50),
      now: z.coerce.number().positive().optional().openapi({ description: "End of the window (default: the server clock)" }),
    }),
  },
  responses: {
    200: { description: "The report", content: { "application/json": { schema: FairnessReportSchema } } },
    ...errorResponses(400, 401, 403, 404, 422),
  },
});
