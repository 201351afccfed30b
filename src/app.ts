/**
 * The Hono app: the routes mounted on the base app (http/create-app.ts: middleware, the error
 * contract), then the OpenAPI document (http/open-api.ts). The same function builds the app the
 * tests call.
 */
import { createBaseApp } from "./http/create-app";
import { configureOpenApi } from "./http/open-api";
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

export { MAX_BODY_BYTES } from "./http/create-app";

/** The app: the middleware and error answers (http/create-app.ts), every route, and the OpenAPI document. */
export function createApp() {
  const app = createBaseApp();
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

  configureOpenApi(app);
  return routed;
}

/** The app's type: every route with its input and answers (hono-open-api-starter's `AppType`, for `hc<AppType>`). */
export type AppType = ReturnType<typeof createApp>;

export const app = createApp();
