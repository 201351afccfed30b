/** `/p/:slug`: reads the project's snapshots (totals, apps, versions, leaderboards) and draws the page. */
import { dayOf } from "../credit/history";
import { latestNeutrality } from "../services/neutrality";
import { serverNow } from "../clock";
import { HOLDER_KINDS } from "../snapshots/keys";
import { readProject } from "../snapshots/public-project";
import { readAppVersions, readApps, readTopPage } from "../snapshots/reads";
import { setCacheValidators } from "../snapshots/store";
import { chartDays } from "./chart-days";
import { boardOrder, chartWindow } from "./page-query";
import { type Board, ProjectPage } from "./project-page";
import { type Ctx, MARKUP_VERSION, html, notFound, validSlug } from "./respond";

/** Leaderboard rows a project page shows per kind. */
const BOARD_ROWS = 10;

export async function projectPage(c: Ctx) {
  const slug = c.req.param("slug") ?? "";
  const project = validSlug(slug) ? await readProject(c, slug) : null;
  if (!project) return notFound(c, `There is no project “${slug}” here.`);
  const ref = { id: project.data.id, slug };
  const now = serverNow();
  const by = boardOrder(c.req.query("by"));
  const days = chartWindow(c.req.query("days"));
  const [neutrality, apps, versions, ...boards] = await Promise.all([
    latestNeutrality(c),
    readApps(c, ref),
    readAppVersions(c, ref),
    ...HOLDER_KINDS.map((kind) => readTopPage(c, ref, kind, by)),
  ]);
  const versionParts = [project, apps, versions, ...boards].map((r) => r.version);
  if (setCacheValidators(c, [MARKUP_VERSION, ...versionParts, by, `${days}`, `${dayOf(now)}`, `n${neutrality.as_of}`]))
    return c.body(null, 304);
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
      neutrality={neutrality}
      boards={shown}
      by={by}
      window={days}
      days={chartDays(project.data.history, project.data.total_credit, days, now)}
      asOf={now}
      snapshotTime={Math.min(project.takenAt, apps.takenAt, versions.takenAt, ...boards.map((b) => b.takenAt))}
    />,
  );
}
