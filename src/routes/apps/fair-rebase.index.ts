/** POST …/apps/{app}/fair-rebase: the operator's answer to the fair anchor's alarm (docs/fair-credit.md#the-alarm-and-the-re-base). */
import { createRouter } from "../../http/router";
import { serverNow } from "../../clock";
import { auditRow } from "../../http/audit";
import { appBody } from "../../snapshots/catalog-bodies";
import { route } from "./fair-rebase.routes";
import { rebaseFairAnchor } from "./fair-rebase.service";
import type { AppRouteHandler } from "../route-handler";

const routeHandler: AppRouteHandler<typeof route> = async (c) => {
  const { app: appName } = c.req.valid("param");
  const { reason } = c.req.valid("json");
  const now = serverNow();
  // The audit row, with the reason, in the re-base's own batch (not after the answer, as other writes'): both or neither.
  const done = await rebaseFairAnchor(c.var.db, c.var.project.id, appName, now, auditRow(c, 200, now, reason));
  return c.json({ app: appBody(done.app), versions_unsealed: done.versionsUnsealed, rows_made_founders: done.rowsMadeFounders }, 200);
};

export const fairRebaseRouter = createRouter().openapi(route, routeHandler);
