/**
 * Calls the Worker with some of its bindings replaced: a deployment without ADMIN_TOKEN,
 * without the rate-limit binding, or with a D1 that fails on purpose (test/security/faulty-d1.ts).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import type { Env } from "../../src/env";
import type { ApiResponse } from "../support/api";

export async function callWith<T = any>(
  overrides: Partial<Record<keyof Env, unknown>>,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers["Content-Type"] ??= "application/json";
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
  }
  const ctx = createExecutionContext();
  const patched = { ...env, ...overrides } as Env;
  const res = await worker.fetch(new Request(`http://cobblestone.test${path}`, { method, headers, body }), patched, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}
