/** Calls the Worker the way a project's scripts would: HTTP + JSON, through its real bindings. */
import { exports } from "cloudflare:workers";
import type { BodyArgs, RequestBody, SuccessBody } from "./api-types";
import { recordResponse } from "./response-schemas";

export const ADMIN_TOKEN = "test-admin-token";
const BASE = "http://cobblestone.test";

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers?: Headers;
}

/**
 * A call typed by the OpenAPI document (test/support/api-types.ts): `opts.body` must be the
 * documented JSON body of `method` and `path` (none where the operation takes none), and the
 * answer's `body` is its documented success body. The path is written as a literal or template
 * (`/v1/projects/${slug}/passes`); an error answer is read with `expectError`
 * (test/support/api-helpers.ts), which checks its shape and returns it typed. A path the API
 * does not document (/docs, /p/…) takes no body and gives `unknown`.
 */
export function request<M extends string, P extends string>(
  method: M,
  path: P,
  opts: RequestOptions<RequestBody<M, P>> = {},
): Promise<ApiResponse<SuccessBody<M, P>>> {
  const { xml, ...rest } = opts;
  const sent = xml === undefined ? rest : { ...rest, rawBody: xml, contentType: "application/xml" };
  return call(method, path, sent) as Promise<ApiResponse<SuccessBody<M, P>>>;
}

/** What `request` sends: a token, headers, and the documented JSON body or an XML one. */
export interface RequestOptions<B> {
  token?: string;
  headers?: Record<string, string>;
  /** The operation's JSON body, as the OpenAPI document types it. */
  body?: B;
  /** An XML body, sent as application/xml, where the route takes BOINC's XML too (an account manager's RPC, a central push). */
  xml?: string;
}

/**
 * A request outside what the OpenAPI document types: a deliberately malformed one (a non-JSON,
 * spoiled or misplaced body, another content type, a path no route has) or an undocumented
 * page (/docs, /p/…). Neither the body sent nor the answer is typed: the test narrows the
 * answer (`expectError`, a check of its shape) before reading it.
 */
export function rawRequest(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse> {
  return call(method, path, opts);
}

/**
 * A project's calls typed like `request`, by the path under /v1/projects/{slug}: `ok` takes the
 * body the operation documents (required where it is) and must answer 200; `raw` takes it too
 * (or none, or another token) to read an error answer; `untyped` sends anything.
 */
export function typedClient(slug: string, token: string) {
  type Under<P extends string> = `/v1/projects/${string}${P}`;
  const under = <P extends string>(path: P) => `/v1/projects/${slug}${path}` as Under<P>;
  return {
    /** A call that must answer 200; throws with the error body otherwise. */
    ok: async <M extends string, P extends string>(
      method: M,
      path: P,
      ...[body]: BodyArgs<M, Under<P>>
    ): Promise<SuccessBody<M, Under<P>>> => {
      const res = await request(method, under(path), { token, body });
      if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    raw: <M extends string, P extends string>(method: M, path: P, body?: RequestBody<M, Under<P>>, tokenOverride?: string) =>
      request(method, under(path), { token: tokenOverride ?? token, body }),
    /** `rawRequest` under the project: any body (a spoiled one: `spoil` in test/support/api-helpers.ts), answer `unknown`. */
    untyped: (method: string, path: string, body?: unknown, tokenOverride?: string) =>
      rawRequest(method, under(path), { token: tokenOverride ?? token, body }),
  };
}

/**
 * One row of a table of calls over several routes: its body is checked against the route's
 * documented one here, where the row's method and path are still known. The loop over the rows
 * no longer knows them, so it sends each through an untyped call (`rawRequest`, `callWithRaw`).
 */
export interface CallRow {
  method: string;
  path: string;
  token?: string;
  body?: unknown;
}

export function callRow<M extends string, P extends string>(
  method: M,
  path: P,
  token: string | undefined,
  ...[body]: BodyArgs<M, P>
): CallRow {
  return { method, path, token, body };
}

/** What `rawRequest` sends: anything. */
export interface CallOptions {
  token?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Of a body; null sends none. */
  contentType?: string | null;
}

/** The HTTP call under `request` and `rawRequest`: the body parsed as JSON where it is JSON. */
async function call(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined || opts.body !== undefined) {
    const contentType = opts.contentType === undefined ? "application/json" : opts.contentType;
    if (contentType !== null) headers["Content-Type"] = contentType;
    body = opts.rawBody ?? JSON.stringify(opts.body);
  }
  const res = await exports.default.fetch(`${BASE}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (e.g. the /docs page)
  }
  recordResponse(method, path, res, parsed);
  return { status: res.status, body: parsed, headers: res.headers };
}

let projects = 0;

/** What a project may be created with besides its slug (POST /v1/projects's documented body). */
export type ProjectSettings = Partial<RequestBody<"POST", "/v1/projects">>;

/** A fresh project with its token (slugs are unique within a test file's storage). */
export async function createProject(prefix = "p", settings: ProjectSettings = {}): Promise<{ slug: string; token: string }> {
  const slug = `${prefix}-${++projects}-${Math.random().toString(36).slice(2, 8)}`;
  const res = await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug, name: `Project ${slug}`, ...settings } });
  if (res.status !== 201) throw new Error(`create project: ${res.status} ${JSON.stringify(res.body)}`);
  return { slug, token: res.body.token };
}
