import { access } from "../access";
import { createRoute } from "@hono/zod-openapi";
import { errorResponses } from "../../http/errors";
import { CreatedProjectSchema, CreateProjectSchema } from "./projects.schemas";

export const createProjectRoute = createRoute({
  method: "post",
  path: "/v1/projects",
  tags: ["Admin"],
  summary: "Create a project and its token",
  ...access("admin"),
  request: { body: { required: true, content: { "application/json": { schema: CreateProjectSchema } } } },
  responses: {
    201: { description: "Created", content: { "application/json": { schema: CreatedProjectSchema } } },
    ...errorResponses(400, 401, 409, 422, 503),
  },
});
