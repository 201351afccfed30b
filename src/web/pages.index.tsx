/**
 * The public web pages. They read the same KV snapshots as the JSON reads (snapshots/reads.ts)
 * and carry the same cache validators, so a page and its API answer show the same numbers.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { serverNow } from "../clock";
import { latestScaleTable } from "../services/plan-class-scales";
import { HOLDER_KINDS } from "../snapshots/keys";
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

export function mountPages(app: OpenAPIHono<AppEnv>): void {
  app.use("/p/:slug", pageProject);
  app.use("/p/:slug/*", pageProject);
  app.get("/", homePage);
  app.get("/central", centralPage);
  app.get("/central/neutrality", neutralityPage);
  app.get("/p/:slug", projectPage);
  for (const kind of HOLDER_KINDS) app.get(`/p/:slug/${kind}/:id`, (c) => holderPage(c, kind));
  // Anything else under /p/ is a page address too: the friendly 404, not the API's JSON one.
  app.get("/p/*", (c) => notFound(c, "There is no page at this address."));
}
