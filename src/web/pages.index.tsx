/**
 * The public web pages. They read the same KV snapshots as the JSON reads (snapshots/reads.ts)
 * and carry the same cache validators, so a page and its API answer show the same numbers.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import { dayOf } from "../credit/history";
import { projectUrlKey } from "../credit/project-url";
import { type LinkedAmCredit, loadUserAmCredit } from "../db/am-history";
import type { AppEnv } from "../env";
import { sha256Hex } from "../http/tokens";
import { IdParam, SlugSchema, serverNow } from "../routes/common";
import { historyWindow } from "../routes/history/history.schemas";
import { latestScaleTable } from "../routes/plan-classes/plan-classes.index";
import { HOLDER_KINDS, type HolderKind } from "../snapshots/keys";
import { historyFromDay, readProject } from "../snapshots/public-project";
import { readAppVersions, readApps, readHolder, readLeaderboardPage, readProjectList } from "../snapshots/reads";
import { SNAPSHOT_LIMITS } from "../snapshots/limits";
import { setCacheValidators } from "../snapshots/store";
import { CentralPage } from "./central-page";
import { chartDays } from "./chart-days";
import { HolderPage, type Owner } from "./holder-page";
import { HomePage } from "./home-page";
import { oneOf, pageUrls } from "./links";
import { NotFoundPage } from "./not-found-page";
import { boardOrder, chartWindow } from "./page-query";
import { type Board, ProjectPage } from "./project-page";

type Ctx = Context<AppEnv>;

/** Leaderboard rows a project page shows per kind. */
const BOARD_ROWS = 10;
/** Bumped when the markup changes, so that no cache keeps an old page under a current ETag. */
const MARKUP_VERSION = "html1";

async function html(c: Ctx, page: JSX.Element, status: 200 | 404 = 200) {
  return c.html(`<!DOCTYPE html>${await page}`, status);
}

function notFound(c: Ctx, what: string, back?: { href: string; text: string }) {
  // Unknown ids are remembered in KV for this long; a newly created one shows up after it.
  c.header("Cache-Control", `public, max-age=${SNAPSHOT_LIMITS.missingTtlSeconds}`);
  return html(c, <NotFoundPage what={what} back={back} />, 404);
}

const validSlug = (slug: string) => SlugSchema.safeParse(slug).success;
function parseId(text: string): number | null {
  const parsed = IdParam.safeParse(text);
  return parsed.success ? parsed.data : null;
}

async function homePage(c: Ctx) {
  const read = await readProjectList(c);
  if (setCacheValidators(c, [MARKUP_VERSION, read.version])) return c.body(null, 304);
  return html(c, <HomePage projects={read.data.projects} asOf={serverNow()} snapshotTime={read.takenAt} />);
}

async function projectPage(c: Ctx) {
  const slug = c.req.param("slug") ?? "";
  const project = validSlug(slug) ? await readProject(c, slug) : null;
  if (!project) return notFound(c, `There is no project “${slug}” here.`);
  const ref = { id: project.data.id, slug };
  const now = serverNow();
  const by = boardOrder(c.req.query("by"));
  const days = chartWindow(c.req.query("days"));
  const [apps, versions, ...boards] = await Promise.all([
    readApps(c, ref),
    readAppVersions(c, ref),
    ...HOLDER_KINDS.map((kind) => readLeaderboardPage(c, ref, kind, by, 0, now)),
  ]);
  const versionParts = [project, apps, versions, ...boards].map((r) => r.version);
  if (setCacheValidators(c, [MARKUP_VERSION, ...versionParts, by, `${days}`, `${dayOf(now)}`])) return c.body(null, 304);
  const shown: Board[] = HOLDER_KINDS.map((kind, i) => ({
    kind,
    total: boards[i]!.data.total,
    entries: boards[i]!.data.entries.slice(0, BOARD_ROWS),
  }));
  return html(
    c,
    <ProjectPage
      project={project.data}
      apps={apps.data.apps}
      versions={versions.data.app_versions}
      boards={shown}
      by={by}
      window={days}
      days={chartDays(project.data.history.buckets, project.data.total_credit, days, now)}
      asOf={now}
      snapshotTime={Math.min(project.takenAt, apps.takenAt, versions.takenAt, ...boards.map((b) => b.takenAt))}
    />,
  );
}

/** Whom a holder belongs to: a host's user, a user's team (0: none, as in BOINC). */
const OWNER_KIND: Partial<Record<HolderKind, { kind: HolderKind; field: "user_id" | "team_id" }>> = {
  hosts: { kind: "users", field: "user_id" },
  users: { kind: "teams", field: "team_id" },
};

async function holderPage(c: Ctx, kind: HolderKind) {
  const slug = c.req.param("slug") ?? "";
  const idText = c.req.param("id") ?? "";
  const project = validSlug(slug) ? await readProject(c, slug) : null;
  if (!project) return notFound(c, `There is no project “${slug}” here.`);
  const ref = { id: project.data.id, slug };
  const back = { href: pageUrls.project(slug), text: project.data.name };
  const id = parseId(idText);
  if (id === null) return notFound(c, `There is no ${oneOf(kind)} “${idText}” in ${project.data.name}.`, back);
  const now = serverNow();
  const read = await readHolder(c, ref, kind, id, historyFromDay(now));
  if (!read) return notFound(c, `There is no ${oneOf(kind)} ${id} in ${project.data.name}.`, back);
  const up = OWNER_KIND[kind];
  const ownerId = up ? (read.data[up.field] ?? 0) : 0;
  const ownerRead = up && ownerId > 0 ? await readHolder(c, ref, up.kind, ownerId, historyFromDay(now)) : null;
  const owner: Owner | null =
    up && ownerId > 0 ? { kind: up.kind, id: ownerId, name: ownerRead?.data.name ?? null, known: ownerRead !== null } : null;
  const days = chartWindow(c.req.query("days"));
  const amCredit = kind === "users" ? await userAmCredit(c, project.data, id, days, now) : [];
  // Account-manager bookings are not in the KV snapshots: their numbers are part of the ETag.
  const amPart = amCredit.length === 0 ? "-" : (await sha256Hex(JSON.stringify(amCredit))).slice(0, 12);
  const parts = [MARKUP_VERSION, project.version, read.version, ownerRead?.version ?? "-", amPart, `${days}`, `${dayOf(now)}`];
  if (setCacheValidators(c, parts)) return c.body(null, 304);
  const { history, ...holder } = read.data;
  return html(
    c,
    <HolderPage
      slug={slug}
      projectName={project.data.name}
      kind={kind}
      holder={holder}
      owner={owner}
      amCredit={amCredit}
      window={days}
      days={chartDays(history.buckets, holder.total_credit, days, now)}
      asOf={now}
      snapshotTime={read.takenAt}
    />,
  );
}

async function centralPage(c: Ctx) {
  const table = await latestScaleTable(c);
  // A published table never changes: its version names it.
  if (setCacheValidators(c, [MARKUP_VERSION, "central", String(table.version)])) return c.body(null, 304);
  return html(c, <CentralPage table={table} />);
}

/**
 * A user's account-manager credit over the chart's window: read from D1 (account managers'
 * bookings have no KV snapshot), and only for a project whose url can match the clients'.
 */
async function userAmCredit(c: Ctx, project: { id: number; url: string | null }, userId: number, days: number, now: number): Promise<LinkedAmCredit[]> {
  const urlKey = project.url === null ? null : projectUrlKey(project.url);
  if (urlKey === null) return [];
  const w = historyWindow({ days }, now);
  return loadUserAmCredit(c.var.db, project.id, userId, urlKey, w.firstDay, w.lastDay);
}

export function mountPages(app: OpenAPIHono<AppEnv>): void {
  app.get("/", homePage);
  app.get("/central", centralPage);
  app.get("/p/:slug", projectPage);
  for (const kind of HOLDER_KINDS) app.get(`/p/:slug/${kind}/:id`, (c) => holderPage(c, kind));
  // Anything else under /p/ is a page address too: the friendly 404, not the API's JSON one.
  app.get("/p/*", (c) => notFound(c, "There is no page at this address."));
}
