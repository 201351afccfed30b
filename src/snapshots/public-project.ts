/**
 * Public read routes find their project in KV (never in the ledger); with the project's own
 * token they read D1 instead (`fresh`), so a project sees its writes at once.
 */
import { createMiddleware } from "hono/factory";
import { dayOf } from "../credit/history";
import type { AppEnv } from "../env";
import { requireProjectToken } from "../http/auth";
import { ApiError } from "../http/errors";
import { serverNow } from "../clock";
import { kvKeys } from "./keys";
import { SNAPSHOT_LIMITS } from "./limits";
import { type ProjectSnapshot, loadProjectSnapshot } from "./project";
import { type SnapshotRead, readThrough } from "./store";

/** The first day of history a snapshot taken at `now` keeps. */
export function historyFromDay(now: number): number {
  return dayOf(now) - (SNAPSHOT_LIMITS.historyDays - 1);
}

export function readProject(c: Parameters<typeof readThrough>[0], slug: string): Promise<SnapshotRead<ProjectSnapshot> | null> {
  return readThrough(c, kvKeys.project(slug), () => loadProjectSnapshot(c.var.db, slug, historyFromDay(serverNow())));
}

/**
 * Slug → project id, remembered by this isolate: a project's id never changes and projects are
 * never deleted, so most public reads need no lookup at all (unknown slugs are not remembered).
 */
const projectIds = new Map<string, number>();

export const publicRead = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header("Authorization") !== undefined) {
    return requireProjectToken(c, async () => {
      c.set("fresh", true);
      await next();
    });
  }
  const slug = c.req.param("slug") ?? "";
  let id = projectIds.get(slug);
  if (id === undefined) {
    const read = await readProject(c, slug);
    if (!read) throw new ApiError(404, "not_found", `no project '${slug}'`);
    id = read.data.id;
    projectIds.set(slug, id);
  }
  c.set("project", { id, slug });
  await next();
});
