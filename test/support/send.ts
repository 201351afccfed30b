/**
 * A JSON call to a running server (Node-side tests: bridge, browser), failing loudly on any non-2xx;
 * the answer is typed by the OpenAPI document, like `request` (test/support/api.ts).
 */
import type { SuccessBody } from "./api-types";

export async function send<M extends string, P extends string>(
  base: string,
  method: M,
  path: P,
  token: string,
  body?: unknown,
): Promise<SuccessBody<M, P>> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as SuccessBody<M, P>;
}
