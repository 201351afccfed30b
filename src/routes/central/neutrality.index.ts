/** GET /v1/central/neutrality: the project-neutrality index the daily job published to KV (public). */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { latestNeutrality } from "../../services/neutrality";
import { snapshotResponse } from "../../snapshots/store";
import { route } from "./neutrality.routes";

export function mountNeutrality(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const body = await latestNeutrality(c);
    return snapshotResponse(c, ["neutrality", String(body.as_of)], body);
  });
}
