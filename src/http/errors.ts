import { z } from "@hono/zod-openapi";
import type { ZodError } from "zod";

/** The error shape of every 4xx/5xx answer (docs/spec/api-contract.md#errors). */
const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "validation_failed" }),
      message: z.string(),
      issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    }),
  })
  .openapi("Error");

export type ErrorBody = z.infer<typeof ErrorSchema>;

// A field left out says so, rather than zod's "expected number, received undefined" (every
// schema of the app shares zod's global configuration).
z.config({
  customError: (issue) =>
    issue.code === "invalid_type" && issue.input === undefined ? `required (${issue.expected}), but missing` : undefined,
});
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
    return boundedError({ error: { code: this.code, message: this.message, ...(this.issues ? { issues: this.issues } : {}) } });
  }
}

/**
 * What an error answer repeats of its input is bounded (SECURITY.md): each message and path
 * at most ERROR_VALUE_CHARS characters, the issues at most ERROR_ISSUES_CHARS characters in
 * all, the ones left out counted in a last issue. A client fixing its input needs the first
 * few, not an echo of a 5 MB body.
 */
const ERROR_VALUE_CHARS = 300;
const ERROR_ISSUES_CHARS = 6000;

function clip(text: string): string {
  if (text.length <= ERROR_VALUE_CHARS) return text;
  const cut = ERROR_VALUE_CHARS - 40;
  return `${text.slice(0, cut)}… (${text.length - cut} more characters)`;
}

export function boundedError(body: ErrorBody): ErrorBody {
  const { code, message, issues } = body.error;
  if (issues === undefined) return { error: { code: clip(code), message: clip(message) } };
  const kept: Issue[] = [];
  let chars = 0;
  for (const issue of issues) {
    const one = { path: clip(issue.path), message: clip(issue.message) };
    chars += one.path.length + one.message.length + 32;
    if (chars > ERROR_ISSUES_CHARS) break;
    kept.push(one);
  }
  const left = issues.length - kept.length;
  if (left > 0) kept.push({ path: "(body)", message: `${left} more issues not listed` });
  return { error: { code: clip(code), message: clip(message), issues: kept } };
}

/** `workunits[3].results[1].elapsed_time`, from zod's path array. */
function formatPath(path: readonly PropertyKey[]): string {
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
    409: "Conflicts with what is stored; `concurrent_write`: another request was writing the same rows and this one lost the race after its retries (nothing written; retry after Retry-After)",
    410: "Past the project's retention window (`outside_retention_window`): records of results sent, trickle messages paid or error outcomes decided that long ago may be purged; or a new result of a workunit credited and then purged (`workunit_purged`, naming it)",
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
