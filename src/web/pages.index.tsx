/**
 * The public web pages. They read the same KV snapshots as the JSON reads (snapshots/reads.ts)
 * and carry the same cache validators, so a page and its API answer show the same numbers.
 */
import type { AppEnv } from "../env";
import { serverNow } from "../clock";
import { latestScaleTable } from "../services/plan-class-scales";
import { readProjectList } from "../snapshots/reads";
import { setCacheValidators } from "../snapshots/store";
import { CentralPage } from "./central-page";
import { latestNeutrality } from "../services/neutrality";
import { NeutralityPage } from "./neutrality-page";
import { holderPage } from "./holder-route";
import { HomePage } from "./home-page";
import { projectPage } from "./project-route";
import { type Ctx, MARKUP_VERSION, html, notFound, validSlug } from "./respond";
import { createMiddleware } from "hono/factory";
import { useProject } from "../http/auth";
import { createRouter } from "../http/router";
import { knownProject } from "../snapshots/public-project";

async function homePage(c: Ctx) {
  const read = await readProjectList(c);
  if (setCacheValidators(c, [MARKUP_VERSION, read.version])) return c.body(null, 304);
  return html(c, <HomePage projects={read.data.projects} asOf={serverNow()} snapshotTime={read.takenAt} />);
}

async function centralPage(c: Ctx) {
  const table = await latestScaleTable(c);
  // A published table never changes: its version names it.
  if (setCacheValidators(c, [MARKUP_VERSION, "central", String(table.version)])) return c.body(null, 304);
  return html(c, <CentralPage table={table} />);
}

async function neutralityPage(c: Ctx) {
  const body = await latestNeutrality(c);
  if (setCacheValidators(c, [MARKUP_VERSION, "neutrality", String(body.as_of)])) return c.body(null, 304);
  return html(c, <NeutralityPage body={body} />);
}

/**
 * A project's pages read, on a KV miss, the database the project lives in (an unknown slug
 * falls through to the page's own 404).
 */
const pageProject = createMiddleware<AppEnv>(async (c, next) => {
  const slug = c.req.param("slug") ?? "";
  const project = validSlug(slug) ? await knownProject(c, slug) : null;
  if (project) useProject(c, project);
  await next();
});

/** The pages, plain Hono routes (HTML, outside the OpenAPI document). */
export const pagesRouter = createRouter()
  .use("/p/:slug", pageProject)
  .use("/p/:slug/*", pageProject)
  .get("/", homePage)
  .get("/central", centralPage)
  .get("/central/neutrality", neutralityPage)
  .get("/p/:slug", projectPage)
  // One per kind, in HOLDER_KINDS' order.
  .get("/p/:slug/hosts/:id", (c) => holderPage(c, "hosts"))
  .get("/p/:slug/users/:id", (c) => holderPage(c, "users"))
  .get("/p/:slug/teams/:id", (c) => holderPage(c, "teams"))
  // Anything else under /p/ is a page address too: the friendly 404, not the API's JSON one.
  .get("/p/*", (c) => notFound(c, "There is no page at this address."));
