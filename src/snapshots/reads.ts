/**
 * The read-through of each public snapshot (KV key + D1 loader), shared by the JSON routes
 * and the web pages so that both show the same numbers from the same keys.
 */
import type { ProjectRef } from "../env";
import { loadAppVersions, loadApps } from "./catalog";
import { loadHolderSnapshots } from "./holders";
import { type HolderKind, type LeaderboardOrder, kvKeys } from "./keys";
import { type LeaderboardPage, type LeaderboardPosition, loadLeaderboardAfter } from "./leaderboard";
import { SNAPSHOT_LIMITS } from "./limits";
import { loadProjectListOf } from "./project";
import { type SnapshotRead, readThrough, snapshotOf } from "./store";

type Ctx = Parameters<typeof readThrough>[0];

/** A host's, user's or team's snapshot, with history from `fromDay` when loaded from D1. */
export function readHolder(c: Ctx, project: ProjectRef, kind: HolderKind, id: number, fromDay: number) {
  return readThrough(c, kvKeys.holder(project.slug, kind, id), async () => {
    const loaded = await loadHolderSnapshots(c.var.db, project.id, kind, [id], fromDay);
    return loaded.get(id) ?? null;
  });
}

/** The top page as the cron stores it (the web page's); a missing key is read from D1 by keyset. */
export async function readTopPage(
  c: Ctx,
  project: ProjectRef,
  kind: HolderKind,
  by: LeaderboardOrder,
): Promise<SnapshotRead<LeaderboardPage>> {
  const read = await readThrough(c, kvKeys.leaderboardPage(project.slug, kind, by, 0), () =>
    loadLeaderboardAfter(c.var.db, project.id, kind, by, null, SNAPSHOT_LIMITS.leaderboardPageSize),
  );
  return read!;
}

/** A stored page (never from D1: a deep page is read by keyset instead); null when not in KV. */
export async function readStoredPage(
  c: Ctx,
  project: ProjectRef,
  kind: HolderKind,
  by: LeaderboardOrder,
  page: number,
): Promise<SnapshotRead<LeaderboardPage> | null> {
  if (c.var.fresh) return null;
  const held = await c.env.KV.get(kvKeys.leaderboardPage(project.slug, kind, by, page));
  return held === null ? null : snapshotOf<LeaderboardPage>(held);
}

/** `limit` entries after a cursor's position, from D1 by keyset (remembered a minute per colo). */
export async function readLeaderboardAfter(
  c: Ctx,
  project: ProjectRef,
  kind: HolderKind,
  by: LeaderboardOrder,
  after: { cursor: string; position: LeaderboardPosition } | null,
  limit: number,
): Promise<SnapshotRead<LeaderboardPage>> {
  const key = kvKeys.leaderboardAfter(project.slug, kind, by, after?.cursor ?? "", limit);
  const load = () => loadLeaderboardAfter(c.var.db, project.id, kind, by, after?.position ?? null, limit);
  return (await readThrough(c, key, load, { kv: false }))!;
}

export async function readProjectList(c: Ctx) {
  return (await readThrough(c, kvKeys.projects(), () => loadProjectListOf(c.env)))!;
}

export async function readApps(c: Ctx, project: ProjectRef) {
  return (await readThrough(c, kvKeys.apps(project.slug), () => loadApps(c.var.db, project.id)))!;
}

export async function readAppVersions(c: Ctx, project: ProjectRef) {
  return (await readThrough(c, kvKeys.appVersions(project.slug), () => loadAppVersions(c.var.db, project.id)))!;
}
