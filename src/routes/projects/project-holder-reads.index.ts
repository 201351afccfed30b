/**
 * Where public reads of a project's hosts, users and teams come from (docs/public-reads.md,
 * Holder reads): KV snapshots the minute cron writes (the default), or live from D1. A project
 * with more holders changing a minute than the cron may write to KV (a very large one) reads
 * them live: fresher, and no KV write per holder. The operator sets it (admin only); the
 * project may read it.
 */
import { createRouter } from "../../http/router";
import { forgetProject } from "../../snapshots/public-project";
import { serverNow } from "../common";
import { getRoute, putRoute } from "./project-holder-reads.routes";
import { type HolderReads, setSnapshotsSince, snapshotsSince, snapshotsSinceFor } from "./project-holder-reads.service";
import type { AppRouteHandler } from "../route-handler";

const answer = (slug: string, since: number | null) =>
  ({ slug, holder_reads: since === null ? "live" : "snapshots", snapshots_since: since }) as const;

const putHandler: AppRouteHandler<typeof putRoute> = async (c) => {
  const { holder_reads } = c.req.valid("json");
  const held = await snapshotsSince(c.var.registry, c.var.project.id);
  const current: HolderReads = held === null ? "live" : "snapshots";
  if (current === holder_reads) return c.json(answer(c.var.project.slug, held), 200);
  const since = snapshotsSinceFor(holder_reads, serverNow());
  await setSnapshotsSince(c.var.registry, c.var.db, c.var.project.id, since);
  // This isolate at once; the others within the minute they remember a project for.
  forgetProject(c.var.project.slug);
  return c.json(answer(c.var.project.slug, since), 200);
};

const getHandler: AppRouteHandler<typeof getRoute> = async (c) => {
  return c.json(answer(c.var.project.slug, await snapshotsSince(c.var.registry, c.var.project.id)), 200);
};

export const projectHolderReadsRouter = createRouter().openapi(getRoute, getHandler).openapi(putRoute, putHandler);
