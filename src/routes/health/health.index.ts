/**
 * GET /health: whether the service can work, cheap enough to poll every minute: one tiny query
 * per bound D1 database (does it answer, and does it hold every table of src/db/schema.ts) and
 * one KV get. 200 when all answer; 503 naming each that failed.
 */
import { createRouter } from "../../http/router";
import { databaseBindings } from "../../db/project-db";
import { log } from "../../log";
import { route } from "./health.routes";
import { checkDatabase } from "./health.service";
import type { AppRouteHandler } from "../route-handler";

const noAnswer = (e: unknown) => `no answer: ${(e instanceof Error ? e.message : String(e)).slice(0, 200)}`;

const check = (name: string, error: string | undefined) => ({ name, ok: error === undefined, ...(error === undefined ? {} : { error }) });

const routeHandler: AppRouteHandler<typeof route> = async (c) => {
  const bound = c.env as unknown as Record<string, D1Database>;
  const checks = await Promise.all([
    ...databaseBindings(c.env).map(async (name) => check(name, await checkDatabase(bound[name]!).catch(noAnswer))),
    c.env.KV.get("health").then(
      () => check("KV", undefined),
      (e: unknown) => check("KV", noAnswer(e)),
    ),
  ]);
  const ok = checks.every((x) => x.ok);
  for (const x of checks) if (!x.ok) log("error", { event: "health_check_failed", check: x.name, error: x.error });
  return c.json({ ok, checks }, ok ? 200 : 503);
};

export const healthRouter = createRouter().openapi(route, routeHandler);
