/** POST …/apps/{app}/fair-rebase: the operator's answer to the fair anchor's alarm (docs/fair-credit.md#the-alarm-and-the-re-base). */
import { createRouter } from "../../http/router";
import { serverNow } from "../../clock";
import { appBody } from "../../snapshots/catalog-bodies";
import { route } from "./fair-rebase.routes";
import { rebaseFairAnchor } from "./fair-rebase.service";

export const fairRebaseRouter = createRouter().openapi(route, async (c) => {
  const { app: appName } = c.req.valid("param");
  const { reason } = c.req.valid("json");
  const done = await rebaseFairAnchor(c.var.db, c.var.project.id, appName, serverNow());
  c.set("auditReason", reason);
  return c.json({ app: appBody(done.app), versions_unsealed: done.versionsUnsealed, rows_made_founders: done.rowsMadeFounders }, 200);
});
