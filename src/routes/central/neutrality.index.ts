/** GET /v1/central/neutrality: the project-neutrality index the daily job published to KV (public). */
import { createRouter } from "../../http/router";
import { latestNeutrality } from "../../services/neutrality";
import { setCacheValidators } from "../../snapshots/store";
import type { AppRouteHandler } from "../route-handler";
import { route } from "./neutrality.routes";

const neutrality: AppRouteHandler<typeof route> = async (c) => {
  const body = await latestNeutrality(c);
  if (setCacheValidators(c, ["neutrality", String(body.as_of)])) return c.body(null, 304);
  return c.json(body, 200);
};

export const neutralityRouter = createRouter().openapi(route, neutrality);
