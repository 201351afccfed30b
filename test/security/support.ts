/**
 * Calls the Worker with some of its bindings replaced: a deployment without ADMIN_TOKEN,
 * without the rate-limit binding, or with a D1 that fails on purpose (test/security/faulty-d1.ts).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import type { WorkerEnv } from "../../src/env";
import type { ApiResponse } from "../support/api";
import type { RequestBody, SuccessBody } from "../support/api-types";
import { recordResponse } from "../support/response-schemas";

/** Like `request` (test/support/api.ts): the body and the answer are typed by the OpenAPI document. */
export async function callWith<M extends string, P extends string>(
  overrides: Partial<Record<keyof WorkerEnv, unknown>>,
  method: M,
  path: P,
  opts: { token?: string; body?: RequestBody<M, P>; headers?: Record<string, string> } = {},
): Promise<ApiResponse<SuccessBody<M, P>>> {
  return (await callWithRaw(overrides, method, path, opts)) as ApiResponse<SuccessBody<M, P>>;
}

/** Like `rawRequest` (test/support/api.ts): any body (a string is sent as it is), the answer `unknown`. */
export async function callWithRaw(
  overrides: Partial<Record<keyof WorkerEnv, unknown>>,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers["Content-Type"] ??= "application/json";
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
  }
  const ctx = createExecutionContext();
  const patched = { ...env, ...overrides } as WorkerEnv;
  const res = await worker.fetch(new Request(`http://cobblestone.test${path}`, { method, headers, body }), patched, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  recordResponse(method, path, res, parsed);
  return { status: res.status, body: parsed, headers: res.headers };
}
