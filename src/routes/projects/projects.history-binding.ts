/** Checks of a history database named by the operator (creation, or adding one later). */
import { z } from "@hono/zod-openapi";
import { DEFAULT_BINDING, databaseBindings, projectDatabase } from "../../db/project-db";
import { projects } from "../../db/schema";
import { ApiError } from "../../http/errors";

export const BindingNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, "a D1 binding name")
  .openapi({ description: "A D1 binding of this deployment (wrangler.jsonc d1_databases)", example: "DB_HISTORY_1" });

/**
 * A history database is a bound database (DB_<NAME>) other than the default one, the project's
 * ledger and its history databases so far: 422 naming the field otherwise.
 */
export function checkHistoryBinding(
  env: object,
  binding: string,
  ledger: string | null,
  current: readonly string[],
  path = "database",
): void {
  const bound = databaseBindings(env).filter((b) => b !== DEFAULT_BINDING);
  const why = !databaseBindings(env).includes(binding)
    ? `no D1 binding '${binding}' on this deployment (wrangler.jsonc d1_databases)`
    : binding === DEFAULT_BINDING || binding === (ledger ?? DEFAULT_BINDING)
      ? `'${binding}' holds the project's ledger; history goes to a database of its own`
      : current.includes(binding)
        ? `'${binding}' already holds the project's history`
        : null;
  if (why !== null)
    throw new ApiError(422, "unknown_database", why, [
      { path, message: `one of ${bound.join(", ") || "(none bound)"}, other than the ledger` },
    ]);
}

/** The database must hold the schema (the migrations applied): 422 now rather than a failing job later. */
export async function checkMigrated(env: object, binding: string, path = "database"): Promise<void> {
  try {
    await projectDatabase(env, binding).select({ id: projects.id }).from(projects).limit(1);
  } catch {
    throw new ApiError(
      422,
      "unknown_database",
      `'${binding}' has no Cobblestone tables: apply the migrations to it first (wrangler d1 migrations apply ${binding})`,
      [{ path, message: "a migrated D1 database" }],
    );
  }
}
