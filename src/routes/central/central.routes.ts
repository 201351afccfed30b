import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { ApiError, errorResponses } from "../../http/errors";
import { isXmlMediaType, mediaType } from "../../http/xml";
import { PushResultSchema, PushSchema } from "./central.schemas";
import { TEXT_LIMITS, storedText } from "../common";

/** A push is JSON or XML; anything else is 415, said in this route's own terms. */
const requireExportMediaType = createMiddleware<AppEnv>(async (c, next) => {
  const type = mediaType(c.req.header("content-type"));
  if (type !== "application/json" && !isXmlMediaType(type)) {
    throw new ApiError(415, "unsupported_media_type", "send the export as JSON (application/json) or as XML (application/xml)");
  }
  await next();
});

export const pushRoute = createRoute({
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
    query: z.object({ project: storedText(TEXT_LIMITS.boincName).optional().openapi({ description: "For an XML push" }) }),
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
