/**
 * Results that did not succeed (docs/spec/credit.md#errors): a client error resets the host's
 * consecutive_valid, a timeout also adds its delay bound as a turnaround sample, an abort by
 * the project changes nothing; errors and timeouts also raise the fair policy's error rate (for
 * an app on "fair", creating a missing host_app_version as BOINC's scheduler would have).
 * Each result id counts once, as in a pass: a stored outcome is replayed, and one whose `now`
 * lies before the retention horizon (its row may have been purged) is refused (410).
 */
import { createRouter } from "../../http/router";
import { retryOnConflict } from "../../http/conflict-retry";
import { resolveNow } from "../common";
import { route } from "./errors.routes";
import { recordErrors } from "./errors.service";
import type { AppRouteHandler } from "../route-handler";

const routeHandler: AppRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  const now = resolveNow(body.now);
  // An identical request racing this one may insert the same results first; read again and
  // answer them as replays (409 only if their content differs), as a sequential retry would.
  const recorded = await retryOnConflict(() => recordErrors(c.var.db, c.var.project.id, body, now), "outcomes of these results");
  return c.json({ results: recorded }, 200);
};

export const errorsRouter = createRouter().openapi(route, routeHandler);
