import { RATE_LIMIT_TIERS } from "../../limits";
import { projectSettingRoutes } from "./project-setting.routes";
import { RateLimitSchema, SetRateLimitSchema } from "./project-rate-limit.schemas";

export const { getRoute, changeRoute: putRoute } = projectSettingRoutes({
  path: "/v1/projects/{slug}/rate-limit",
  answer: { schema: RateLimitSchema, description: "The project's rate limit" },
  read: { tag: "Tokens", summary: "The project's rate-limit tier and what it admits" },
  change: {
    method: "put",
    body: SetRateLimitSchema,
    summary: "Operator: set the project's rate-limit tier",
    description: Object.entries(RATE_LIMIT_TIERS)
      .map(([name, t]) => `${name}: ${t.limit} requests per ${t.periodSeconds} s`)
      .join("; "),
  },
});
