/**
 * A project setting the operator changes and the project may read (rate limit, holder reads,
 * history databases): `GET` with the project's token or the admin token, and a `PUT` or
 * `POST` for the admin token alone, both answering the setting as `answer` describes it.
 */
import { type z, createRoute } from "@hono/zod-openapi";
import { type ErrorStatus, errorResponses } from "../../http/errors";
import { access } from "../access";
import { SlugParams } from "../common";

interface SettingRoutes<P extends string, A extends z.ZodType, B extends z.ZodType, M extends "put" | "post"> {
  readonly path: P;
  /** What the setting is, for the answer's description. */
  readonly answer: { readonly schema: A; readonly description: string };
  readonly read: { readonly tag: string; readonly summary: string };
  readonly change: {
    readonly method: M;
    readonly body: B;
    readonly summary: string;
    readonly description: string;
    /** Refusals besides 400, 401, 404, 429 and 503. */
    readonly refusals?: readonly ErrorStatus[];
  };
}

export function projectSettingRoutes<P extends string, A extends z.ZodType, B extends z.ZodType, M extends "put" | "post">(
  setting: SettingRoutes<P, A, B, M>,
) {
  const ok = { description: setting.answer.description, content: { "application/json": { schema: setting.answer.schema } } };
  const { change } = setting;
  return {
    getRoute: createRoute({
      method: "get",
      path: setting.path,
      tags: [setting.read.tag],
      summary: setting.read.summary,
      ...access("projectTokenOrAdmin"),
      request: { params: SlugParams },
      responses: { 200: ok, ...errorResponses(401, 403, 404, 429, 503) },
    }),
    changeRoute: createRoute({
      method: change.method,
      path: setting.path,
      tags: ["Admin"],
      summary: change.summary,
      description: change.description,
      ...access("adminForProject"),
      request: { params: SlugParams, body: { required: true, content: { "application/json": { schema: change.body } } } },
      responses: { 200: ok, ...errorResponses(400, 401, 404, ...(change.refusals ?? []), 429, 503) },
    }),
  };
}
