import { createRouter } from "../../http/router";
import { rescaleProject } from "../../services/rescale";
import { resolveNow } from "../common";
import { route } from "./rescale.routes";
import type { AppRouteHandler } from "../route-handler";

const routeHandler: AppRouteHandler<typeof route> = async (c) => {
  const body = c.req.header("content-type")?.includes("json") ? c.req.valid("json") : {};
  const now = resolveNow(body.now);
  const report = await rescaleProject(c.var.db, c.var.registry, c.var.project.id, now);
  return c.json(
    {
      now,
      apps: report.map((a) => ({
        name: a.app,
        basis: a.basis,
        min_avg_pfc: a.minAvgPfc,
        scaled_versions: a.scaledVersions.map((v) => ({ id: v.id, pfc_scale: v.pfcScale })),
        ...(a.crossProject
          ? {
              cross_project: {
                factor: a.crossProject.factor,
                registry_version: a.crossProject.registryVersion,
                plan_classes: a.crossProject.planClasses.map((p) => ({
                  plan_class: p.planClass,
                  factor: p.factor,
                  source: p.source,
                })),
              },
            }
          : {}),
        fair: {
          level: a.fair.level,
          raw_level: a.fair.rawLevel,
          anchor: a.fair.sRef,
          anchored_now: a.fair.anchoredNow,
          held_at_anchor_limit: a.fair.clamped,
        },
      })),
    },
    200,
  );
};

export const rescaleRouter = createRouter().openapi(route, routeHandler);
