/**
 * The request's environment, before any route runs: the deployment's variables, parsed once
 * per isolate (src/env.ts; `c.var.settings`), and its D1 bindings metered for the request's log
 * line (`c.var.d1Usage`, src/db/metered.ts). A deployment with a bad variable or a missing
 * binding answers every request 500 `misconfigured`, naming each problem (a secret's value is
 * never shown), and logs the problems once per isolate.
 */
import { createMiddleware } from "hono/factory";
import { meteredEnv, newD1Usage } from "../db/metered";
import { type AppEnv, EnvError, type Settings, parseEnv } from "../env";
import { log } from "../log";
import { type ErrorBody, boundedError } from "./errors";

/** The environments whose problems were logged (an isolate keeps one). */
const reported = new WeakSet<object>();

function misconfigured(error: EnvError): ErrorBody {
  const message = `this deployment is misconfigured and serves nothing until its operator fixes it: ${error.problems.join("; ")}`;
  const issues = error.problems.map((p) => ({ path: p.slice(0, p.indexOf(":")), message: p.slice(p.indexOf(":") + 1).trim() }));
  return boundedError({ error: { code: "misconfigured", message, issues } });
}

export const requestEnv = createMiddleware<AppEnv>(async (c, next) => {
  let settings: Settings;
  try {
    settings = parseEnv(c.env);
  } catch (e) {
    if (!(e instanceof EnvError)) throw e;
    if (!reported.has(c.env)) {
      reported.add(c.env);
      log("error", { event: "config_invalid", message: e.message, problems: e.problems });
    }
    return c.json(misconfigured(e), 500);
  }
  c.set("settings", settings);
  const usage = newD1Usage();
  c.set("d1Usage", usage);
  c.env = meteredEnv(c.env, usage);
  await next();
});
