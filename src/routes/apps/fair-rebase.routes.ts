import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { AppNameParams, AppSchema } from "./apps.schemas";

export const FairRebaseSchema = z
  .strictObject({
    reason: z
      .string()
      .trim()
      .min(3)
      .max(500)
      .openapi({ description: "Why (kept in the audit log), e.g. 'v7.2 builds twice as fast'", example: "new app build, 12% faster" }),
  })
  .openapi("FairRebase");

export const FairRebaseResponseSchema = z
  .object({
    app: AppSchema,
    versions_unsealed: z.number().int().openapi({ description: "App versions whose seal was lifted" }),
    rows_made_founders: z.number().int().openapi({ description: "Host × version rows that were not founders and now are" }),
  })
  .openapi("FairRebaseResult");

export const route = createRoute({
  method: "post",
  path: "/v1/projects/{slug}/apps/{app}/fair-rebase",
  tags: ["Configuration"],
  summary: "Re-base the fair policy's anchor of an app (version 3)",
  description:
    "Clears the app's anchor S_ref and every version's seal, and makes every existing host × version row of the app a founder; " +
    "the next rescale that finds the app mature takes a new anchor and seals again (docs/fair-credit.md#the-alarm-and-the-re-base). " +
    "For a genuine change of the app's level beyond 3% (the alarm: fair_held_at_anchor_limit). Written to the audit log with its reason.",
  ...access("manageToken"),
  request: { params: AppNameParams, body: { required: true, content: { "application/json": { schema: FairRebaseSchema } } } },
  responses: {
    200: { description: "The app after the re-base", content: { "application/json": { schema: FairRebaseResponseSchema } } },
    ...errorResponses(400, 401, 403, 404, 422),
  },
});
