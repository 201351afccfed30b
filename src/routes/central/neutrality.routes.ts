import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { NeutralityBodySchema } from "../../snapshots/neutrality.body";
import { NOT_MODIFIED } from "../../snapshots/store";

export const route = createRoute({
  method: "get",
  path: "/v1/central/neutrality",
  tags: ["Cross-project"],
  summary: "Project-neutrality index: what each project pays per device-hour, on the same hosts",
  description:
    "Computed daily over hosts (by host_cpid) attached to at least two projects of this deployment, per resource " +
    "class (CPU, or a GPU's processor type): a robust fit of ln(credit per device-hour) = host effect + project " +
    "effect over a 30-day window, centred on the median project, with a bootstrap 90% interval, and the pairwise " +
    "ratios with their shared hosts. Read-only: no credit is changed by it. See docs/central-registry.md.",
  responses: {
    200: {
      description: "The latest index (as_of null and no classes before the first run)",
      content: { "application/json": { schema: NeutralityBodySchema } },
    },
    ...NOT_MODIFIED,
    ...errorResponses(),
  },
});
