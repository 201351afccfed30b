import { access } from "../access";
import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { CreateAccountManagerSchema, CreatedAccountManagerSchema } from "./account-managers.schemas";

export const createRouteDef = createRoute({
  method: "post",
  path: "/v1/account-managers",
  tags: ["Account managers"],
  summary: "Create an account manager and its token",
  ...access("admin"),
  request: { body: { required: true, content: { "application/json": { schema: CreateAccountManagerSchema } } } },
  responses: {
    201: { description: "Created", content: { "application/json": { schema: CreatedAccountManagerSchema } } },
    ...errorResponses(400, 401, 409, 503),
  },
});
