/**
 * The central server's intake: a project elsewhere pushes its app-version export (JSON, or
 * the XML of BOINC's app_versions.php) with its central token (central.contributors.ts), and
 * each push replaces its previous set. Projects of this deployment need no token: the
 * aggregation job reads them directly.
 */
import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { sql } from "drizzle-orm";
import { runBatch } from "../../db/batch";
import { centralContributions } from "../../db/schema";
import { chunks, insertFromJson } from "../../db/sql-helpers";
import type { AppEnv } from "../../env";
import { ApiError, errorResponses, issuesOf } from "../../http/errors";
import { serverNow } from "../common";
import { isXmlMediaType, mediaType } from "../../http/xml";
import { appVersionsFromXml } from "./app-versions-xml";
import { type Push, PushResultSchema, PushSchema } from "./central.schemas";

/** A push is JSON or XML; anything else is 415, said in this route's own terms. */
const requireExportMediaType = createMiddleware<AppEnv>(async (c, next) => {
  const type = mediaType(c.req.header("content-type"));
  if (type !== "application/json" && !isXmlMediaType(type)) {
    throw new ApiError(415, "unsupported_media_type", "send the export as JSON (application/json) or as XML (application/xml)");
  }
  await next();
});

const pushRoute = createRoute({
  method: "post",
  path: "/v1/central/app-versions",
  tags: ["Cross-project"],
  summary: "Push a project's app-version export to the plan-class registry",
  description:
    "JSON `{project?, app_versions: [...]}`, or the XML that BOINC's app_versions.php prints " +
    "(Content-Type: application/xml; name the project with ?project=). Replaces the set this " +
    "contributor last pushed for that project.",
  ...access("centralToken", requireExportMediaType),
  request: {
    query: z.object({ project: z.string().max(254).optional().openapi({ description: "For an XML push" }) }),
    body: {
      required: false,
      content: {
        "application/json": { schema: PushSchema },
        "application/xml": { schema: z.string().openapi({ description: "BOINC's app_versions.php output" }) },
        "text/xml": { schema: z.string() },
      },
    },
  },
  responses: {
    200: { description: "Stored", content: { "application/json": { schema: PushResultSchema } } },
    ...errorResponses(400, 401, 413, 415),
  },
});

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
