/**
 * The central server's intake: a project elsewhere pushes its app-version export (JSON, or
 * the XML of BOINC's app_versions.php) with its central token (central-contributors.index.ts), and
 * each push replaces its previous set. Projects of this deployment need no token: the
 * aggregation job reads them directly.
 */
import { createRouter } from "../../http/router";
import { ApiError, issuesOf } from "../../http/errors";
import { serverNow } from "../common";
import { isXmlMediaType } from "../../http/xml";
import { appVersionsFromXml } from "./central.xml";
import { type Push, PushSchema } from "./central.schemas";
import { pushRoute } from "./central.routes";
import { storePush } from "./central.service";
import type { AppRouteHandler } from "../route-handler";

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

const pushHandler: AppRouteHandler<typeof pushRoute> = async (c) => {
  const query = c.req.valid("query");
  const push: Push = isXmlMediaType(c.req.header("content-type"))
    ? pushFromXml(await c.req.text(), query.project)
    : (c.req.valid("json") as Push);
  const contributor = c.var.contributor;
  const project = push.project ?? query.project ?? "";
  const now = serverNow();
  const stored = await storePush(c.var.db, contributor.id, project, push, now);
  return c.json({ contributor: contributor.name, project, app_versions: stored, reported_at: now }, 200);
};

export const centralRouter = createRouter().openapi(pushRoute, pushHandler);
