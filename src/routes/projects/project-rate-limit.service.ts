import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { projects } from "../../db/schema";
import type { RateLimitTierName } from "../../limits";

export async function loadRateLimitTier(registry: Db, projectId: number): Promise<RateLimitTierName> {
  const [row] = await registry.select({ tier: projects.rateLimitTier }).from(projects).where(eq(projects.id, projectId));
  return row!.tier;
}

export async function setRateLimitTier(registry: Db, projectId: number, tier: RateLimitTierName): Promise<void> {
  await registry.update(projects).set({ rateLimitTier: tier }).where(eq(projects.id, projectId));
}
