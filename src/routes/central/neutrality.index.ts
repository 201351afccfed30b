/** GET /v1/central/neutrality: the project-neutrality index the daily job published to KV (public). */
import { OpenAPIHono, createRoute } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { errorResponses } from "../../http/errors";
import { NEUTRALITY_KV_KEY, NO_NEUTRALITY } from "../../services/neutrality";
import { type NeutralityBody, NeutralityBodySchema } from "../../snapshots/neutrality.body";
import { NOT_MODIFIED, snapshotResponse } from "../../snapshots/store";

const route = createRoute({
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
    200: { description: "The latest index (as_of null and no classes before the first run)", content: { "application/json": { schema: NeutralityBodySchema } } },
    ...NOT_MODIFIED,
    ...errorResponses(),
  },
});

/** The latest index from KV; the pages read it here too. */
export async function latestNeutrality(c: Context<AppEnv>): Promise<NeutralityBody> {
  return (await c.env.KV.get<NeutralityBody>(NEUTRALITY_KV_KEY, "json")) ?? NO_NEUTRALITY;
}

export function mountNeutrality(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const body = await latestNeutrality(c);
    return snapshotResponse(c, ["neutrality", String(body.as_of)], body);
  });
}
