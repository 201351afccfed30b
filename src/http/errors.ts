import { z } from "@hono/zod-openapi";
import type { ZodError } from "zod";

/** The error shape of every 4xx/5xx answer (DESIGN.md, API contract). */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "validation_failed" }),
      message: z.string(),
      issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .openapi("Error");

export type ErrorBody = z.infer<typeof ErrorSchema>;
export type Issue = { path: string; message: string };
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503;

/** Thrown by handlers; the app's error handler turns it into the error shape. */
export class ApiError extends Error {
  constructor(
    readonly status: ErrorStatus,
    readonly code: string,
    message: string,
    readonly issues?: Issue[],
    /** Extra response headers (Retry-After of a 429). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  body(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}) } };
  }
}

/** `workunits[3].results[1].elapsed_time`, from zod's path array. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(body)" : out;
}

export function issuesOf(error: ZodError): Issue[] {
  return error.issues.map((i) => ({ path: formatPath(i.path), message: i.message }));
}

/** The error responses a route can give, for its OpenAPI declaration. */
export function errorResponses(...statuses: ErrorStatus[]) {
  const descriptions: Record<ErrorStatus, string> = {
    400: "Malformed, or fails the schema: `issues` lists every bad field",
    401: "No token, or an unknown one",
    403: "A token of another project",
    404: "Unknown project, app, app version or entity",
    409: "Conflicts with what is stored",
    410: "Past the project's retention window (`outside_retention_window`): records of results sent (or trickle messages paid) that long ago may be purged",
    413: "Too large",
    415: "The body is not sent as application/json",
    422: "Well-formed but impossible",
    429: "Too many requests for this project or account, all its tokens together (`rate_limited`); see Retry-After",
    500: "Internal error; nothing was written",
    503: "The admin token is not configured (`admin_disabled`), the database is unavailable (`unavailable`), or a leaderboard page is not published yet (`not_published`): retry after Retry-After",
  };
  return Object.fromEntries(
    statuses.map((s) => [s, { description: descriptions[s], content: { "application/json": { schema: ErrorSchema } } }]),
  ) as Record<ErrorStatus, { description: string; content: { "application/json": { schema: typeof ErrorSchema } } }>;
}
