import { z } from "@hono/zod-openapi";

export const HOLDER_READS = ["snapshots", "live"] as const;

export const HolderReadsField = z.enum(HOLDER_READS).openapi({
  description:
    "snapshots: from KV, written by the minute cron for every holder whose credit changed (at most about 900 a minute across a database's projects). live: from D1, kept a minute in each colo's cache, with no KV write per holder; for a project with more holders changing a minute than that.",
  example: "live",
});

export const HolderReadsSchema = z
  .object({
    slug: z.string(),
    holder_reads: HolderReadsField,
    snapshots_since: z
      .number()
      .nullable()
      .openapi({ description: "Unix seconds: KV snapshots taken before it are not served (null: holders are read live)" }),
  })
  .openapi("HolderReads");

export const SetHolderReadsSchema = z.strictObject({ holder_reads: HolderReadsField }).openapi("SetHolderReads");
