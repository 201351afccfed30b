/**
 * Fuzz sizes and seeds. `npm test` runs the base counts (seeded, so a failure reproduces);
 * `npm run fuzz` multiplies them by FUZZ_SCALE (vitest.config.ts passes it in as a binding)
 * and may set FUZZ_SEED.
 */
import { env } from "cloudflare:workers";

const scale = Math.max(1, Number((env as { FUZZ_SCALE?: string }).FUZZ_SCALE ?? "1") || 1);
const seedOverride = (env as { FUZZ_SEED?: string }).FUZZ_SEED;

export function runs(base: number): number {
  return Math.round(base * scale);
}

export function seed(base: number): number {
  return seedOverride ? Number(seedOverride) + base : base;
}
