/**
 * Every request gets an id: Cloudflare's `cf-ray` when it looks like one, else a UUID. It is
 * returned as X-Request-Id on every response (errors too) and recorded with every write in
 * the audit log, so an operator can match a client's report to a log line.
 */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";

/** A ray id is hex, optionally with a data-centre suffix; anything else (or longer) is not trusted. */
const RAY = /^[0-9a-f]{8,32}(-[A-Z]{3,4})?$/i;

export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const ray = c.req.header("cf-ray");
  const id = ray && RAY.test(ray) ? ray : crypto.randomUUID();
  c.set("requestId", id);
  await next();
  try {
    c.res.headers.set("X-Request-Id", id);
  } catch {
    // Immutable headers (a response passed through): copy it.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set("X-Request-Id", id);
  }
});
