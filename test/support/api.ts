/** Calls the Worker the way a project's scripts would: HTTP + JSON, through its real bindings. */
import { exports } from "cloudflare:workers";
import type { SuccessBody } from "./api-types";
import { recordResponse } from "./response-schemas";

export const ADMIN_TOKEN = "test-admin-token";
const BASE = "http://cobblestone.test";

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers?: Headers;
}

/**
 * A call typed by the OpenAPI document (test/support/api-types.ts): `body` is the documented
 * success body of `method` and `path`, written as a literal or template (`/v1/projects/${slug}/passes`);
 * an error answer is read with `expectError` (test/support/api-helpers.ts), which checks its shape and
 * returns it typed. A path the API does not document (/docs, /p/…) gives `unknown`.
 */
export function request<M extends string, P extends string>(
  method: M,
  path: P,
  opts: CallOptions = {},
): Promise<ApiResponse<SuccessBody<M, P>>> {
  return call(method, path, opts) as Promise<ApiResponse<SuccessBody<M, P>>>;
}

/**
 * A request outside what the OpenAPI document types: a deliberately malformed one (a non-JSON
 * or spoiled body, a path no route has) or an undocumented page (/docs, /p/…). The body is
 * `unknown`: the test narrows it (`expectError`, a check of its shape) before reading it.
 */
export function rawRequest(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse> {
  return call(method, path, opts);
}

/** A project's calls typed like `request`, by the path under /v1/projects/{slug}. */
export function typedClient(slug: string, token: string) {
  type Under<P extends string> = `/v1/projects/${string}${P}`;
  const under = <P extends string>(path: P) => `/v1/projects/${slug}${path}` as Under<P>;
  return {
    /** A call that must answer 200; throws with the error body otherwise. */
    ok: async <M extends string, P extends string>(method: M, path: P, body?: unknown): Promise<SuccessBody<M, Under<P>>> => {
      const res = await request(method, under(path), { token, body });
      if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    raw: <M extends string, P extends string>(method: M, path: P, body?: unknown, tokenOverride?: string) =>
      request(method, under(path), { token: tokenOverride ?? token, body }),
  };
}

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

/** A fresh project with its token (slugs are unique within a test file's storage). */
export async function createProject(prefix = "p", settings: Record<string, unknown> = {}): Promise<{ slug: string; token: string }> {
  const slug = `${prefix}-${++projects}-${Math.random().toString(36).slice(2, 8)}`;
  const res = await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug, name: `Project ${slug}`, ...settings } });
  if (res.status !== 201) throw new Error(`create project: ${res.status} ${JSON.stringify(res.body)}`);
  return { slug, token: res.body.token };
}
