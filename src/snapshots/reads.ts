/**
 * The read-through of each public snapshot (KV key + D1 loader), shared by the JSON routes
 * and the web pages so that both show the same numbers from the same keys.
 */
import type { ProjectRef } from "../env";
import { loadAppVersions, loadApps } from "./catalog";
import { loadHolderSnapshots } from "./holders";
import { type HolderKind, type LeaderboardOrder, kvKeys } from "./keys";
import { type LeaderboardPage, type LeaderboardPosition, boardSize, loadLeaderboardAfter } from "./leaderboard";
import { SNAPSHOT_LIMITS } from "./limits";
import { loadProjectListOf } from "./project";
import { opener } from "../db/project-db";
import { type SnapshotRead, readThrough, snapshotOf } from "./store";

type Ctx = Parameters<typeof readThrough>[0];

/**
 * A host's, user's or team's snapshot, with history from `fromDay` when loaded from D1: from
 * KV, or live from D1 (a minute in the colo's cache) for a project whose holder snapshots are
 * off (docs/public-reads.md#holder-reads). A project known without its setting reads KV.
 */
export function readHolder(c: Ctx, project: ProjectRef, kind: HolderKind, id: number, fromDay: number) {
  const since = project.holderSnapshotsSince === undefined ? 0 : project.holderSnapshotsSince;
  const load = async () => {
    const loaded = await loadHolderSnapshots(c.var.db, project.id, kind, [id], fromDay, opener(c.env));
    return loaded.get(id) ?? null;
  };
  return readThrough(c, kvKeys.holder(project.slug, kind, id), load, { kv: since !== null, takenFrom: since ?? 0 });
}

/**
 * The top page as the cron stores it (the web page's). A missing key is read from D1 only
 * when a scan is bounded (a board of one page) or with the project's token; otherwise the
 * board shows no entries until the cron has ranked it (within a minute of its project's mark).
 */
export async function readTopPage(
  c: Ctx,
  project: ProjectRef,
  kind: HolderKind,
  by: LeaderboardOrder,
): Promise<SnapshotRead<LeaderboardPage>> {
  const read = await readThrough(c, kvKeys.leaderboardPage(project.slug, kind, by, 0), async () => {
    const total = c.var.fresh ? 0 : await boardSize(c.var.db, project.id, kind);
    if (total > SNAPSHOT_LIMITS.leaderboardScanOnMiss) return { total, entries: [] };
    return loadLeaderboardAfter(c.var.db, project.id, kind, by, null, SNAPSHOT_LIMITS.leaderboardPageSize);
  });
  return read!;
}

/** A stored page, top or deep (never from D1); null when not in KV, or with the project's token. */
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

/**
 * `limit` entries after a cursor's position, ranked by D1 from a scan of the board (remembered
 * a minute per colo). Only for the project's token or a board of one page (the caller checks):
 * the scan reads up to twice the board's size.
 */
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
