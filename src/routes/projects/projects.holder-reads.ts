/**
 * Where public reads of a project's hosts, users and teams come from (docs/public-reads.md,
 * Holder reads): KV snapshots the minute cron writes (the default), or live from D1. A project
 * with more holders changing a minute than the cron may write to KV (a very large one) reads
 * them live: fresher, and no KV write per holder. The operator sets it (admin only); the
 * project may read it.
 */
import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { sameDatabase } from "../../db/project-db";
import { projects } from "../../db/schema";
import type { AppEnv } from "../../env";
import { errorResponses } from "../../http/errors";
import { forgetProject } from "../../snapshots/public-project";
import { SlugParams, serverNow } from "../common";

export const HOLDER_READS = ["snapshots", "live"] as const;
export type HolderReads = (typeof HOLDER_READS)[number];

export const HolderReadsField = z.enum(HOLDER_READS).openapi({
  description:
    "snapshots: from KV, written by the minute cron for every holder whose credit changed (at most about 900 a minute across a database's projects). live: from D1, kept a minute in each colo's cache, with no KV write per holder; for a project with more holders changing a minute than that.",
  example: "live",
});

const HolderReadsSchema = z
  .object({
    slug: z.string(),
    holder_reads: HolderReadsField,
    snapshots_since: z
      .number()
      .nullable()
      .openapi({ description: "Unix seconds: KV snapshots taken before it are not served (null: holders are read live)" }),
  })
  .openapi("HolderReads");

const SetHolderReadsSchema = z.strictObject({ holder_reads: HolderReadsField }).openapi("SetHolderReads");

const path = "/v1/projects/{slug}/holder-reads";
const ok = { description: "Where the project's holders are read from", content: { "application/json": { schema: HolderReadsSchema } } };

const getRoute = createRoute({
  method: "get",
  path,
  tags: ["Admin"],
  summary: "Where public reads of the project's hosts, users and teams come from",
  ...access("projectTokenOrAdmin"),
  request: { params: SlugParams },
  responses: { 200: ok, ...errorResponses(401, 403, 404, 429, 503) },
});

const putRoute = createRoute({
  method: "put",
  path,
  tags: ["Admin"],
  summary: "Operator: read the project's holders from KV snapshots or live from D1",
  description:
    "Takes effect within a minute (each isolate looks the setting up again after a minute). Turning snapshots back on serves no KV snapshot taken before that moment: a holder is read from D1 until the cron has written it again. Setting the current value changes nothing.",
  ...access("adminForProject"),
  request: { params: SlugParams, body: { required: true, content: { "application/json": { schema: SetHolderReadsSchema } } } },
  responses: { 200: ok, ...errorResponses(400, 401, 404, 429, 503) },
});

/** The stored column for a setting: null (live) or the time snapshots are trusted from. */
export const snapshotsSinceFor = (reads: HolderReads, now: number): number | null => (reads === "live" ? null : now);

const answer = (slug: string, since: number | null) => ({ slug, holder_reads: since === null ? "live" : "snapshots", snapshots_since: since }) as const;

export function mountProjectHolderReads(app: OpenAPIHono<AppEnv>): void {
  app.openapi(getRoute, async (c) => {
    const [row] = await c.var.registry
      .select({ since: projects.holderSnapshotsSince })
      .from(projects)
      .where(eq(projects.id, c.var.project.id));
    return c.json(answer(c.var.project.slug, row!.since), 200);
  });

  app.openapi(putRoute, async (c) => {
    const { holder_reads } = c.req.valid("json");
    const registry = c.var.registry;
    const [row] = await registry.select({ since: projects.holderSnapshotsSince }).from(projects).where(eq(projects.id, c.var.project.id));
    const current: HolderReads = row!.since === null ? "live" : "snapshots";
    if (current === holder_reads) return c.json(answer(c.var.project.slug, row!.since), 200);
    const since = snapshotsSinceFor(holder_reads, serverNow());
    const set = (db: typeof registry) => db.update(projects).set({ holderSnapshotsSince: since }).where(eq(projects.id, c.var.project.id));
    // The ledger's copy steers the passes' marks and the cron; the registry's, the public reads.
    const ledger = c.var.db;
    if (sameDatabase(ledger, registry)) await registry.batch([set(registry)]);
    else await Promise.all([ledger.batch([set(ledger)]), registry.batch([set(registry)])]);
    // This isolate at once; the others within the minute they remember a project for.
    forgetProject(c.var.project.slug);
    return c.json(answer(c.var.project.slug, since), 200);
  });
}
