/** Calls the Worker the way a project's scripts would: HTTP + JSON, through its real bindings. */
import { exports } from "cloudflare:workers";

export const ADMIN_TOKEN = "test-admin-token";
const BASE = "http://cobblestone.test";

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers?: Headers;
}

export async function call<T = any>(
  method: string,
  path: string,
  opts: {
    token?: string;
    body?: unknown;
    rawBody?: string;
    headers?: Record<string, string>;
    /** Of a body; null sends none. */
    contentType?: string | null;
  } = {},
): Promise<ApiResponse<T>> {
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
  return { status: res.status, body: parsed as T, headers: res.headers };
}

let projects = 0;

/** A fresh project with its token (slugs are unique within a test file's storage). */
export async function createProject(prefix = "p", settings: Record<string, unknown> = {}): Promise<{ slug: string; token: string }> {
  const slug = `${prefix}-${++projects}-${Math.random().toString(36).slice(2, 8)}`;
  const res = await call("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug, name: `Project ${slug}`, ...settings } });
  if (res.status !== 201) throw new Error(`create project: ${res.status} ${JSON.stringify(res.body)}`);
  return { slug, token: res.body.token };
}

/** Calls that must succeed; throws with the error body otherwise. */
export function projectClient(slug: string, token: string) {
  const ok = async <T = any>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await call<T>(method, `/v1/projects/${slug}${path}`, { token, body });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  return {
    ok,
    raw: (method: string, path: string, body?: unknown, tokenOverride?: string) =>
      call(method, `/v1/projects/${slug}${path}`, { token: tokenOverride ?? token, body }),
  };
}
