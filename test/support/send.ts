/**
 * A JSON call to a running server (Node-side tests: bridge, browser), failing loudly on any non-2xx;
 * the body (required where the operation requires one) and the answer are typed by the OpenAPI
 * document, like `typedClient(…).ok` (test/support/api.ts).
 */
import type { BodyArgs, SuccessBody } from "./api-types";

export async function send<M extends string, P extends string>(
  base: string,
  method: M,
  path: P,
  token: string,
  ...[body]: BodyArgs<M, P>
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
