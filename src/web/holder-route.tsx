/**
 * `/p/:slug/{users,hosts,teams}/:id`: reads the holder's snapshot (and its owner's, for the
 * link up), a user's account-manager credit, and draws the page.
 */
import { dayOf } from "../credit/history";
import { projectUrlKey } from "../credit/project-url";
import { type LinkedAmCredit, loadUserAmCredit } from "../db/am-history";
import { sha256Hex } from "../http/tokens";
import { serverNow } from "../clock";
import { historyWindow } from "../credit/history";
import type { HolderKind } from "../snapshots/keys";
import { historyFromDay, readProject } from "../snapshots/public-project";
import { readHolder } from "../snapshots/reads";
import { setCacheValidators } from "../snapshots/store";
import { chartDays } from "./chart-days";
import { HolderPage, type Owner } from "./holder-page";
import { oneOf, pageUrls } from "./links";
import { chartWindow } from "./page-query";
import { type Ctx, MARKUP_VERSION, html, notFound, parseId, validSlug } from "./respond";

/** Whom a holder belongs to: a host's user, a user's team (0: none, as in BOINC). */
const OWNER_KIND: Partial<Record<HolderKind, { kind: HolderKind; field: "user_id" | "team_id" }>> = {
  hosts: { kind: "users", field: "user_id" },
  users: { kind: "teams", field: "team_id" },
};

export async function holderPage(c: Ctx, kind: HolderKind) {
  const slug = c.req.param("slug") ?? "";
  const idText = c.req.param("id") ?? "";
  const project = validSlug(slug) ? await readProject(c, slug) : null;
  if (!project) return notFound(c, `There is no project “${slug}” here.`);
  // The registry's row (pageProject) says where its holders are read from; KV when unknown.
  const ref = c.var.project ?? { id: project.data.id, slug };
  const back = { href: pageUrls.project(slug), text: project.data.name };
  const id = parseId(idText);
  if (id === null) return notFound(c, `There is no ${oneOf(kind)} “${idText}” in ${project.data.name}.`, back);
  const now = serverNow();
  const read = await readHolder(c, ref, kind, id, historyFromDay(now));
  if (!read) return notFound(c, `There is no ${oneOf(kind)} ${id} in ${project.data.name}.`, back);
  const days = chartWindow(c.req.query("days"));
  const up = OWNER_KIND[kind];
  const ownerId = up ? (read.data[up.field] ?? 0) : 0;
  const [ownerRead, amCredit] = await Promise.all([
    up && ownerId > 0 ? readHolder(c, ref, up.kind, ownerId, historyFromDay(now)) : null,
    kind === "users" ? userAmCredit(c, project.data, id, days, now) : [],
  ]);
  const owner: Owner | null =
    up && ownerId > 0 ? { kind: up.kind, id: ownerId, name: ownerRead?.data.name ?? null, known: ownerRead !== null } : null;
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
      days={chartDays(history, holder.total_credit, days, now)}
      asOf={now}
      snapshotTime={read.takenAt}
    />,
  );
}

/**
 * A user's account-manager credit over the chart's window: read from D1 (account managers'
 * bookings have no KV snapshot), and only for a project whose url can match the clients'.
 */
async function userAmCredit(
  c: Ctx,
  project: { id: number; url: string | null },
  userId: number,
  days: number,
  now: number,
): Promise<LinkedAmCredit[]> {
  const urlKey = project.url === null ? null : projectUrlKey(project.url);
  if (urlKey === null) return [];
  const w = historyWindow({ days }, now);
  return loadUserAmCredit(c.var.db, c.var.registry, project.id, userId, urlKey, w.firstDay, w.lastDay);
}
