import { access } from "../access";
import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { IdParam } from "../common";
import { ContributorListSchema, CreateContributorSchema, CreatedContributorSchema } from "./central.schemas";

export const createContributorRoute = createRoute({
  method: "post",
  path: "/v1/central/contributors",
  tags: ["Admin"],
  summary: "Issue a central token to a project elsewhere",
  ...access("admin"),
  request: { body: { required: true, content: { "application/json": { schema: CreateContributorSchema } } } },
  responses: {
    201: { description: "Created; the token is shown only now", content: { "application/json": { schema: CreatedContributorSchema } } },
    ...errorResponses(400, 401, 503),
  },
});

export const listContributorsRoute = createRoute({
  method: "get",
  path: "/v1/central/contributors",
  tags: ["Admin"],
  summary: "Contributors and their last push (never their tokens)",
  ...access("admin"),
  responses: {
    200: { description: "Contributors by id", content: { "application/json": { schema: ContributorListSchema } } },
    ...errorResponses(401, 503),
  },
});

export const deleteContributorRoute = createRoute({
  method: "delete",
  path: "/v1/central/contributors/{id}",
  tags: ["Admin"],
  summary: "Revoke a central token and drop what it pushed",
  ...access("admin"),
  request: { params: z.object({ id: IdParam }) },
  responses: {
    200: {
      description: "Revoked",
      content: { "application/json": { schema: z.object({ id: z.number().int(), revoked: z.literal(true) }) } },
    },
    ...errorResponses(401, 404, 503),
  },
});
