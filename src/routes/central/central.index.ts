/**
 * The central server's intake: a project elsewhere pushes its app-version export (JSON, or
 * the XML of BOINC's app_versions.php) with its central token (central-contributors.index.ts), and
 * each push replaces its previous set. Projects of this deployment need no token: the
 * aggregation job reads them directly.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { runBatch } from "../../db/batch";
import { centralContributions } from "../../db/schema";
import { chunks, insertFromJson } from "../../db/sql-helpers";
import type { AppEnv } from "../../env";
import { ApiError, issuesOf } from "../../http/errors";
import { serverNow } from "../common";
import { isXmlMediaType } from "../../http/xml";
import { appVersionsFromXml } from "./app-versions-xml";
import { type Push, PushSchema } from "./central.schemas";
import { pushRoute } from "./central.routes";

/** An XML push, checked by the same schema as a JSON one. */
function pushFromXml(xml: string, project: string | undefined): Push {
  const parsed = PushSchema.safeParse({ ...appVersionsFromXml(xml), ...(project === undefined ? {} : { project }) });
  const tooMany = parsed.error?.issues.find((i) => i.code === "too_big" && i.path.length === 1);
  if (tooMany) throw new ApiError(413, "too_large", tooMany.message, issuesOf(parsed.error!));
  if (!parsed.success) {
    throw new ApiError(400, "validation_failed", "the XML export is invalid; nothing was written", issuesOf(parsed.error));
  }
  return parsed.data;
}

export function mountCentral(app: OpenAPIHono<AppEnv>): void {
  app.openapi(pushRoute, async (c) => {
    const query = c.req.valid("query");
    const push: Push = isXmlMediaType(c.req.header("content-type"))
      ? pushFromXml(await c.req.text(), query.project)
      : (c.req.valid("json") as Push);
    const contributor = c.var.contributor;
    const project = push.project ?? query.project ?? "";
    const now = serverNow();
    const rows = push.app_versions
      .filter((v) => !v.deprecated)
      .map((v) => ({
        id: v.id,
        app: v.app,
        platform: v.platform,
        planClass: v.plan_class,
        versionNum: v.version_num,
        pfcN: v.pfc_n,
        pfcAvg: v.pfc_avg,
        pfcScale: v.pfc_scale,
        expavgCredit: v.expavg_credit,
        expavgTime: v.expavg_time,
      }));
    const t = centralContributions;
    // One batch: the old set goes and the new one comes, or neither.
    await runBatch(c.var.db, [
      sql`DELETE FROM ${t} WHERE contributor_id = ${contributor.id} AND project = ${project}`,
      ...chunks(rows).map((chunk) =>
        insertFromJson(
          sql`${t}`,
          [
            [t.contributorId, sql`${contributor.id}`],
            [t.project, sql`${project}`],
            [t.appVersionId, "id"],
            [t.app, "app"],
            [t.platform, "platform"],
            [t.planClass, "planClass"],
            [t.versionNum, "versionNum"],
            [t.pfcN, "pfcN"],
            [t.pfcAvg, "pfcAvg"],
            [t.pfcScale, "pfcScale"],
            [t.expavgCredit, "expavgCredit"],
            [t.expavgTime, "expavgTime"],
            [t.reportedAt, sql`${now}`],
          ],
          chunk,
        ),
      ),
    ]);
    return c.json({ contributor: contributor.name, project, app_versions: rows.length, reported_at: now }, 200);
  });
}
