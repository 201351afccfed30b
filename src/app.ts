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
import { ApiError, type ErrorBody, boundedError } from "./http/errors";
import { requestId } from "./http/request-id";
import { requestEnv } from "./http/request-env";
import { requestLog } from "./http/request-log";
import { createRouter } from "./http/router";
import { auditRouter } from "./routes/audit/audit.index";
import { tokensRouter } from "./routes/tokens/tokens.index";
import { accountManagersRouter } from "./routes/account-managers/account-managers.index";
import { accountManagerTokensRouter } from "./routes/account-managers/account-manager-tokens.index";
import { amHistoryRouter } from "./routes/am/am-history.index";
import { amRpcsRouter } from "./routes/am/am-rpcs.index";
import { appVersionsRouter } from "./routes/app-versions/app-versions.index";
import { appsRouter } from "./routes/apps/apps.index";
import { fairnessRouter } from "./routes/apps/fairness.index";
import { fairRebaseRouter } from "./routes/apps/fair-rebase.index";
import { centralContributorsRouter } from "./routes/central/central-contributors.index";
import { centralRouter } from "./routes/central/central.index";
import { neutralityRouter } from "./routes/central/neutrality.index";
import { cpidRouter } from "./routes/cpid/cpid.index";
import { entitiesRouter } from "./routes/entities/entities.index";
import { bulkHoldersRouter } from "./routes/entities/holders-bulk.index";
import { errorsRouter } from "./routes/errors/errors.index";
import { hostAppVersionsRouter } from "./routes/host-app-versions/host-app-versions.index";
import { passesRouter } from "./routes/passes/passes.index";
import { tricklesRouter } from "./routes/trickles/trickles.index";
import { leaderboardsRouter } from "./routes/leaderboards/leaderboards.index";
import { planClassesRouter } from "./routes/plan-classes/plan-classes.index";
import { projectsRouter } from "./routes/projects/projects.index";
import { projectReadsRouter } from "./routes/projects/project-reads.index";
import { projectRateLimitRouter } from "./routes/projects/project-rate-limit.index";
import { projectHistoryDatabasesRouter } from "./routes/projects/project-history-databases.index";
import { projectHolderReadsRouter } from "./routes/projects/project-holder-reads.index";
import { rescaleRouter } from "./routes/rescale/rescale.index";
import { statsRouter } from "./routes/stats/stats.index";
import { pagesRouter } from "./web/pages.index";
import { healthRouter } from "./routes/health/health.index";

export const MAX_BODY_BYTES = 5 * 1024 * 1024;

export function createApp() {
  // The validation hook (a request failing its route's schemas) is src/http/router.ts's, shared by every router.
  const app = createRouter();

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

  // Chained, so that the type of `routed` (the same app: `route` returns it) keeps every route: AppType.
  const routed = app
    .route("/", projectsRouter)
    .route("/", projectReadsRouter)
    .route("/", leaderboardsRouter)
    .route("/", appsRouter)
    .route("/", fairnessRouter)
    .route("/", fairRebaseRouter)
    .route("/", appVersionsRouter)
    .route("/", entitiesRouter)
    .route("/", bulkHoldersRouter)
    .route("/", hostAppVersionsRouter)
    .route("/", passesRouter)
    .route("/", tricklesRouter)
    .route("/", errorsRouter)
    .route("/", rescaleRouter)
    .route("/", tokensRouter)
    .route("/", projectRateLimitRouter)
    .route("/", projectHistoryDatabasesRouter)
    .route("/", projectHolderReadsRouter)
    .route("/", auditRouter)
    .route("/", accountManagersRouter)
    .route("/", accountManagerTokensRouter)
    .route("/", amRpcsRouter)
    .route("/", amHistoryRouter)
    .route("/", centralContributorsRouter)
    .route("/", centralRouter)
    .route("/", neutralityRouter)
    .route("/", planClassesRouter)
    .route("/", cpidRouter)
    .route("/", statsRouter)
    .route("/", pagesRouter)
    .route("/", healthRouter);

  declareCommonErrors(app);
  app.openAPIRegistry.registerComponent("securitySchemes", "projectToken", {
    type: "http",
    scheme: "bearer",
    description:
      "A project's token, for its own slug only. Its scope is 'ingest' or 'manage' (docs/tokens-and-audit.md#scopes): an operation whose " +
      "requirement lists no role takes either; one that lists 'manage' refuses an 'ingest' token (403 insufficient_scope).",
  });
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
  return routed;
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

/** The app's type: every route with its input and answers (hono-open-api-starter's `AppType`, for `hc<AppType>`). */
export type AppType = ReturnType<typeof createApp>;

export const app = createApp();
