/** The migrations as the benchmarks apply them (wrangler applies them for the service). */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** drizzle-kit's migration files in order, each split at its statement breakpoints. */
export function migrationStatements(migrationsDir: string): string[] {
  return readdirSync(migrationsDir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .flatMap((file) => readFileSync(join(migrationsDir, file), "utf8").split("--> statement-breakpoint"))
    .filter((stmt) => stmt.trim() !== "");
}
