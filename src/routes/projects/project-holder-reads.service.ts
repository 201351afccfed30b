import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { setOnProjectCopies } from "../../db/project-db";
import { projects } from "../../db/schema";
import type { HOLDER_READS } from "./project-holder-reads.schemas";

export type HolderReads = (typeof HOLDER_READS)[number];

/** The stored column for a setting: null (live) or the time snapshots are trusted from. */
export const snapshotsSinceFor = (reads: HolderReads, now: number): number | null => (reads === "live" ? null : now);

/** The project's stored setting: null (live) or the time KV snapshots are trusted from. */
export async function snapshotsSince(registry: Db, projectId: number): Promise<number | null> {
  const [row] = await registry.select({ since: projects.holderSnapshotsSince }).from(projects).where(eq(projects.id, projectId));
  return row!.since;
}

/** Stores `since` in the ledger's copy of the project (steers the passes' marks and the cron) and the registry's (the public reads). */
export async function setSnapshotsSince(registry: Db, ledger: Db, projectId: number, since: number | null): Promise<void> {
  await setOnProjectCopies(registry, ledger, projectId, { holderSnapshotsSince: since });
}
