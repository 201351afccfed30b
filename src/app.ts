/**
 * Builds the Hono app: middleware, the error contract, route mounting and the OpenAPI
 * document. The same function builds the app the tests call.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { database } from "./db/client";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./env";
import { auditWrites } from "./http/audit";
import { declareCommonErrors } from "./http/common-errors";
import { isDatabaseFailure } from "./http/db-failure";
import { ApiError, type ErrorBody, boundedError, issuesOf } from "./http/errors";
import { requestId } from "./http/request-id";
import { requestEnv } from "./http/request-env";
import { requestLog } from "./http/request-log";
import { mountAudit } from "./routes/audit/audit.index";
import { mountTokens } from "./routes/tokens/tokens.index";
import { mountAccountManagers } from "./routes/account-managers/account-managers.index";
import { mountAccountManagerTokens } from "./routes/account-managers/account-manager-tokens.index";
import { mountAmHistory } from "./routes/am/am-history.index";
import { mountAmRpcs } from "./routes/am/am-rpcs.index";
import { mountAppVersions } from "./routes/app-versions/app-versions.index";
import { mountApps } from "./routes/apps/apps.index";
import { mountFairness } from "./routes/apps/fairness.index";
import { mountFairRebase } from "./routes/apps/fair-rebase.index";
import { mountCentralContributors } from "./routes/central/central-contributors.index";
import { mountCentral } from "./routes/central/central.index";
import { mountNeutrality } from "./routes/central/neutrality.index";
import { mountCpid } from "./routes/cpid/cpid.index";
import { mountEntities } from "./routes/entities/entities.index";
import { mountBulkHolders } from "./routes/entities/holders-bulk.index";
import { mountErrors } from "./routes/errors/errors.index";
import { mountHostAppVersions } from "./routes/host-app-versions/host-app-versions.index";
import { mountPasses } from "./routes/passes/passes.index";
import { mountTrickles } from "./routes/trickles/trickles.index";
import { mountLeaderboards } from "./routes/leaderboards/leaderboards.index";
import { mountPlanClasses } from "./routes/plan-classes/plan-classes.index";
import { mountProjects } from "./routes/projects/projects.index";
import { mountProjectReads } from "./routes/projects/project-reads.index";
import { mountProjectRateLimit } from "./routes/projects/project-rate-limit.index";
import { mountProjectHistoryDatabases } from "./routes/projects/project-history-databases.index";
import { mountProjectHolderReads } from "./routes/projects/project-holder-reads.index";
import { mountRescale } from "./routes/rescale/rescale.index";
import { mountStats } from "./routes/stats/stats.index";
import { mountPages } from "./web/pages.index";
import { mountHealth } from "./routes/health/health.index";

export const MAX_BODY_BYTES = 5 * 1024 * 1024;

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (result.success) return;
      const issues = issuesOf(result.error);
      // Too many items in any array (workunits, results, error results, pushed app versions,
      // RPC projects) is a size limit, not a shape error.
      const tooMany = result.error.issues.find((i) => i.code === "too_big" && i.origin === "array");
      if (tooMany) {
        return c.json<ErrorBody>(boundedError({ error: { code: "too_large", message: tooMany.message, issues } }), 413);
      }
      const where = result.target === "json" ? "body" : result.target;
      return c.json<ErrorBody>(
        boundedError({ error: { code: "validation_failed", message: `the request ${where} is invalid; nothing was written`, issues } }),
        400,
      );
    },
  });

  app.use("*", requestId);
  // One JSON log line per request; then the variables (parsed once) and the metered D1 bindings.
  app.use("*", requestLog, requestEnv);
  app.use("*", async (c, next) => {
    const registry = database(c.env.DB);
    c.set("registry", registry);
    // Until a project route swaps in its project's database (src/http/auth.ts).
    c.set("db", registry);
    await next();
  });
  app.use("/v1/*", auditWrites);
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json<ErrorBody>({ error: { code: "too_large", message: `the body is over ${MAX_BODY_BYTES} bytes` } }, 413),
    }),
  );

  mountProjects(app);
  mountProjectReads(app);
  mountLeaderboards(app);
  mountApps(app);
  mountFairness(app);
  mountFairRebase(app);
  mountAppVersions(app);
  mountEntities(app);
  mountBulkHolders(app);
  mountHostAppVersions(app);
  mountPasses(app);
  mountTrickles(app);
  mountErrors(app);
  mountRescale(app);
  mountTokens(app);
  mountProjectRateLimit(app);
  mountProjectHistoryDatabases(app);
  mountProjectHolderReads(app);
  mountAudit(app);
  mountAccountManagers(app);
  mountAccountManagerTokens(app);
  mountAmRpcs(app);
  mountAmHistory(app);
  mountCentralContributors(app);
  mountCentral(app);
  mountNeutrality(app);
  mountPlanClasses(app);
  mountCpid(app);
  mountStats(app);
  mountPages(app);
  mountHealth(app);

  declareCommonErrors(app);
  app.openAPIRegistry.registerComponent("securitySchemes", "projectToken", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "amToken", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "centralToken", { type: "http", scheme: "bearer" });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Cobblestone",
      version: "1",
      description: "BOINC's credit and accounting system (CreditNew) as a service.",
    },
  });

  const methodsOf = routeMethods(app);
  app.notFound((c) => {
    // A path the API has, asked with another method: 405 naming the methods it has (docs/api.md#errors).
    const allowed = methodsOf(c.req.path);
    if (allowed.length > 0) {
      const message = `${c.req.method} is not a method of ${c.req.path}; it has ${allowed.join(", ")}`;
      return c.json<ErrorBody>(boundedError({ error: { code: "method_not_allowed", message } }), 405, { Allow: allowed.join(", ") });
    }
    return c.json<ErrorBody>(boundedError({ error: { code: "not_found", message: `no route ${c.req.method} ${c.req.path}` } }), 404);
  });
  app.onError((err, c) => {
    if (err instanceof ApiError) return c.json(err.body(), err.status, err.headers);
    if (err instanceof HTTPException && err.status === 415) {
      const message = "send the body as JSON (Content-Type: application/json)";
      return c.json<ErrorBody>({ error: { code: "unsupported_media_type", message } }, 415);
    }
    if (err instanceof HTTPException && err.status < 500) {
      return c.json<ErrorBody>(boundedError({ error: { code: "bad_request", message: err.message || "bad request" } }), err.status);
    }
    // The request's log line (src/http/request-log.ts) carries the error, with the id the client sees.
    if (isDatabaseFailure(err)) {
      const message = "the database is unavailable; nothing was written; retry";
      return c.json<ErrorBody>({ error: { code: "unavailable", message } }, 503, { "Retry-After": "1" });
    }
    // Not retryable.
    const message = `internal error; nothing was written; retrying will not help (request id ${c.var.requestId})`;
    return c.json<ErrorBody>({ error: { code: "internal", message } }, 500);
  });
  return app;
}

/** The methods the OpenAPI document gives a concrete path (its templates' parameters match one segment each). */
function routeMethods(app: OpenAPIHono<AppEnv>): (path: string) => string[] {
  let routes: { method: string; pattern: RegExp }[] | null = null;
  return (path) => {
    routes ??= app.openAPIRegistry.definitions.flatMap((d) =>
      d.type === "route"
        ? [{ method: d.route.method.toUpperCase(), pattern: new RegExp(`^${d.route.path.replace(/\{[^}]+\}/g, "[^/]+")}$`) }]
        : [],
    );
    return [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
  };
}

export const app = createApp();
