/**
 * The read-through of each public snapshot (KV key + D1 loader), shared by the JSON routes
 * and the web pages so that both show the same numbers from the same keys.
 */
import type { ProjectRef } from "../env";
import { loadAppVersions, loadApps } from "./catalog";
import { loadHolderSnapshots } from "./holders";
import { type HolderKind, type LeaderboardOrder, kvKeys } from "./keys";
import { type LeaderboardPage, loadLeaderboardPage } from "./leaderboard";
import { loadProjectList } from "./project";
import { allDatabases } from "../db/project-db";
import { type SnapshotRead, readThrough } from "./store";

type Ctx = Parameters<typeof readThrough>[0];

/** A host's, user's or team's snapshot, with history from `fromDay` when loaded from D1. */
export function readHolder(c: Ctx, project: ProjectRef, kind: HolderKind, id: number, fromDay: number) {
  return readThrough(c, kvKeys.holder(project.slug, kind, id), async () => {
    const loaded = await loadHolderSnapshots(c.var.db, project.id, kind, [id], fromDay);
    return loaded.get(id) ?? null;
  });
}

/** One stored leaderboard page; never null (a page past the end is empty). */
export async function readLeaderboardPage(
  c: Ctx,
  project: ProjectRef,
  kind: HolderKind,
  by: LeaderboardOrder,
  page: number,
  now: number,
): Promise<SnapshotRead<LeaderboardPage>> {
  const read = await readThrough(c, kvKeys.leaderboardPage(project.slug, kind, by, page), () =>
    loadLeaderboardPage(c.var.db, project.id, kind, by, page, now),
  );
  return read!;
}

export async function readProjectList(c: Ctx) {
  return (await readThrough(c, kvKeys.projects(), () => loadProjectList(allDatabases(c.env))))!;
}

export async function readApps(c: Ctx, project: ProjectRef) {
  return (await readThrough(c, kvKeys.apps(project.slug), () => loadApps(c.var.db, project.id)))!;
}

export async function readAppVersions(c: Ctx, project: ProjectRef) {
  return (await readThrough(c, kvKeys.appVersions(project.slug), () => loadAppVersions(c.var.db, project.id)))!;
}
