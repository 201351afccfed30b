import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { AmParams } from "./account-manager-tokens.schemas";

const path = "/v1/account-managers/{am}/token";

export const rotateRoute = createRoute({
  method: "post",
  path,
  tags: ["Account managers"],
  summary: "Rotate the account manager's token; the current one keeps working for 24 hours",
  ...access("admin"),
  request: { params: AmParams },
  responses: {
    201: {
      description: "The new token",
      content: {
        "application/json": {
          schema: z
            .object({
              slug: z.string(),
              token: z.string().openapi({ description: "The new bearer token. Shown only this once; store it." }),
              previous_expires_at: z
                .number()
                .nullable()
                .openapi({ description: "The token it replaces stops working then (null: it was revoked)" }),
            })
            .openapi("RotatedAccountManagerToken"),
        },
      },
    },
    ...errorResponses(400, 401, 404, 429, 503),
  },
});

export const revokeRoute = createRoute({
  method: "delete",
  path,
  tags: ["Account managers"],
  summary: "Revoke every token of the account manager at once (a rotation issues a new one)",
  ...access("admin"),
  request: { params: AmParams },
  responses: {
    200: {
      description: "Revoked",
      content: { "application/json": { schema: z.object({ slug: z.string(), revoked: z.literal(true) }) } },
    },
    ...errorResponses(400, 401, 404, 429, 503),
  },
});
