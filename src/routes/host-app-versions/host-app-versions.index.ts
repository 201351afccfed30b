import { createRouter } from "../../http/router";
import { listRoute } from "./host-app-versions.routes";
import { listHostAppVersions } from "./host-app-versions.service";
import type { AppRouteHandler } from "../route-handler";

const listHandler: AppRouteHandler<typeof listRoute> = async (c) => {
  const { host_id } = c.req.valid("query");
  const rows = await listHostAppVersions(c.var.db, c.var.project.id, host_id);
  return c.json(
    {
      host_app_versions: rows.map(({ h: r, app: appName }) => ({
        host_id: r.hostId,
        app_version_id: r.appVersionId,
        app: appName,
        pfc_n: r.pfcN,
        pfc_avg: r.pfcAvg,
        et_n: r.etN,
        et_avg: r.etAvg,
        et_var: r.etVar,
        turnaround_n: r.turnaroundN,
        turnaround_avg: r.turnaroundAvg,
        turnaround_var: r.turnaroundVar,
        consecutive_valid: r.consecutiveValid,
        fair_n: r.fairN,
        fair_typical: r.fairQ === null ? null : Math.exp(r.fairQ),
        fair_run: r.fairRun,
        fair_error_rate: r.fairErr,
        fair_high_z_share: r.fairF,
        fair_founder: r.fairFounder,
      })),
    },
    200,
  );
};

export const hostAppVersionsRouter = createRouter().openapi(listRoute, listHandler);
