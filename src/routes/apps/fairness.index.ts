/**
 * The fairness report: which hosts BOINC's rules pay most above the fair policy's, over the
 * last 30 days, whatever the app's policy (both credits are kept with every valid result),
 * and which hosts the quantile gate (docs/spec/fair-policy.md#r17) holds out of their versions' z quantiles now.
 */
import { createRouter } from "../../http/router";
import { resolveNow } from "../common";
import { route } from "./fairness.routes";
import { fairnessReport } from "./fairness.service";
import type { AppRouteHandler } from "../route-handler";

const routeHandler: AppRouteHandler<typeof route> = async (c) => {
  const { app: appName } = c.req.valid("param");
  const { limit, now: given } = c.req.valid("query");
  const now = resolveNow(given);
  const { appRow, since, rows, heldOut } = await fairnessReport(c.var.db, c.var.project.id, appName, now, limit);
  return c.json(
    {
      app: appName,
      credit_policy: appRow.creditPolicy,
      since,
      hosts: rows.map((h) => ({
        host_id: h.hostId,
        results: h.results,
        boinc_credit: h.boinc,
        fair_credit: h.fair,
        ratio: h.fair > 0 ? h.boinc / h.fair : null,
        outliers: h.outliers,
        error_rate: h.errorRate,
        held_out_by_gate: h.heldOut === 1,
      })),
      held_out_by_gate: heldOut.map((o) => ({ host_id: o.hostId, app_version_id: o.appVersionId, high_z_share: o.share, gate: o.gate })),
    },
    200,
  );
};

export const fairnessRouter = createRouter().openapi(route, routeHandler);
