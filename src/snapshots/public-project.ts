/**
 * Public read routes find their project in KV (never in the ledger); with the project's own
 * token they read D1 instead (`fresh`), so a project sees its writes at once.
 */
import { opener } from "../db/project-db";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { dayOf } from "../credit/history";
import type { AppEnv } from "../env";
import { registeredProject, requireProjectToken, useProject } from "../http/auth";
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
  return readThrough(c, kvKeys.project(slug), () => loadProjectSnapshot(c.var.db, slug, historyFromDay(serverNow()), opener(c.env)));
}

/**
 * Slug → the project's registry row, remembered by this isolate for a minute: its id and
 * database never change and projects are never deleted, so most public reads need no lookup;
 * where its holders are read from (holderSnapshotsSince) may change, and is looked up again
 * after `maxAgeSeconds` (unknown slugs are not remembered).
 */
type RegisteredProject = NonNullable<Awaited<ReturnType<typeof registeredProject>>>;
const projectIds = new Map<string, { row: RegisteredProject; at: number }>();

export const publicRead = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.header("Authorization") !== undefined) {
    return requireProjectToken(c, async () => {
      c.set("fresh", true);
      await next();
    });
  }
  const slug = c.req.param("slug") ?? "";
  const project = await knownProject(c, slug);
  if (!project) throw new ApiError(404, "not_found", `no project '${slug}'`);
  useProject(c, project);
  await next();
});

/** The registry row of `slug` (it names the database the snapshot loads fall back to), remembered a minute by this isolate; null if unknown. */
/** Drops this isolate's memory of `slug`: its next read looks the project up again (after a setting changed). */
export function forgetProject(slug: string): void {
  projectIds.delete(slug);
}

export async function knownProject(c: Context<AppEnv>, slug: string): Promise<RegisteredProject | null> {
  const held = projectIds.get(slug);
  const now = serverNow();
  if (held !== undefined && held.at <= now && now - held.at < SNAPSHOT_LIMITS.maxAgeSeconds) return held.row;
  const row = await registeredProject(c, slug);
  if (!row) return null;
  projectIds.set(slug, { row, at: now });
  return row;
}
