/**
 * A database per large project (docs/storage.md). The default binding DB holds the registry
 * (every project's row, tokens, account managers, the plan-class registry) and the small
 * projects; a project created with `database: "<BINDING>"` keeps all its rows in that D1
 * binding (wrangler.jsonc `d1_databases`, named DB_<NAME>). Every route gets its project's database here, by
 * the registry row's `database`, never from env.DB directly.
 *
 * In each database, the projects whose rows live there have `database` NULL: the registry
 * copy of a moved project names its binding, the copy in its own database does not. So a
 * job run on one database handles exactly the projects that live in it (`livesHere`).
 */
import { eq, isNotNull, isNull, or } from "drizzle-orm";
import { type Db, database } from "./client";
import { projects } from "./schema";
import { errorText, log } from "../log";

export const DEFAULT_BINDING = "DB";

function isD1(value: unknown): value is D1Database {
  const v = value as Partial<D1Database> | null;
  return typeof v === "object" && v !== null && typeof v.prepare === "function" && typeof v.batch === "function";
}

/** A project database's binding is named DB_<NAME> (other bindings may answer any method name). */
const PROJECT_BINDING = /^DB_[A-Z0-9_]+$/;

/** Every D1 binding of the deployment, the default first. */
export function databaseBindings(env: object): string[] {
  const others = Object.entries(env)
    .filter(([name, value]) => PROJECT_BINDING.test(name) && isD1(value))
    .map(([name]) => name)
    .sort();
  return [DEFAULT_BINDING, ...others];
}

/** The database a project's rows live in: its binding, or the default (null). */
export function projectDatabase(env: object, binding: string | null): Db {
  const d1 = (env as Record<string, unknown>)[binding ?? DEFAULT_BINDING];
  if (!isD1(d1)) throw new Error(`no D1 binding '${binding}' (wrangler.jsonc d1_databases)`);
  return database(d1);
}

/** Every database, the default first: what a cross-project read or a job goes over. */
export function allDatabases(env: object): Db[] {
  return databaseBindings(env).map((b) => projectDatabase(env, b));
}

/** Whether two handles reach the same D1 database (a project of the default one and the registry). */
export function sameDatabase(a: Db, b: Db): boolean {
  return a.$client === b.$client;
}

/**
 * Sets columns on both copies of a project's row: the ledger's (what passes and jobs in it
 * follow) and the registry's (what routes and cross-database jobs are told). One write when
 * the project lives in the registry's database. Two databases share no transaction: a failure
 * between the two leaves them apart, and the caller's retry (the same PUT or POST) sets both.
 */
export async function setOnProjectCopies(
  registry: Db,
  ledger: Db,
  projectId: number,
  values: Partial<typeof projects.$inferInsert>,
): Promise<void> {
  const set = (db: Db) => db.update(projects).set(values).where(eq(projects.id, projectId));
  if (sameDatabase(ledger, registry)) await registry.batch([set(registry)]);
  else await Promise.all([ledger.batch([set(ledger)]), registry.batch([set(registry)])]);
}

/** The projects whose rows live in the database being queried. */
export const livesHere = isNull(projects.database);

/** Opens a database by binding name: what a loader that may follow a project into other databases is given. */
export type OpenDatabase = (binding: string) => Db;

export function opener(env: object): OpenDatabase {
  return (binding) => projectDatabase(env, binding);
}
/** A database with the binding it is reached by (for logs). */
export interface NamedDb {
  readonly binding: string;
  readonly db: Db;
}

/**
 * The databases that hold projects: the default one (the registry) and every bound one a
 * project's registry row names, as its ledger or its history databases. A binding no project uses is never visited, so one bound but
 * not yet migrated (or left over) cannot fail a job or a read.
 */
export async function projectDatabases(env: object): Promise<NamedDb[]> {
  const registry = projectDatabase(env, DEFAULT_BINDING);
  const named = await registry
    .selectDistinct({ database: projects.database, history: projects.historyDatabases })
    .from(projects)
    .where(or(isNotNull(projects.database), isNotNull(projects.historyDatabases)));
  const bound = new Set(databaseBindings(env));
  // History databases too (src/db/history-databases.ts): their roll-up runs there.
  const names = named.flatMap((r) => [
    ...(r.database ? [r.database] : []),
    ...(r.history ? (JSON.parse(r.history) as { binding: string }[]).map((h) => h.binding) : []),
  ]);
  const others = [...new Set(names)].filter((b) => b !== DEFAULT_BINDING && bound.has(b)).sort();
  return [{ binding: DEFAULT_BINDING, db: registry }, ...others.map((binding) => ({ binding, db: projectDatabase(env, binding) }))];
}

/**
 * Runs `visit` on each database that holds projects. One that fails (unreachable, never
 * migrated) is logged with its binding and skipped; the others are served. Returns what the
 * visits that succeeded returned, and the bindings that failed.
 */
export async function inEachProjectDatabase<T>(
  env: object,
  what: string,
  visit: (db: Db, binding: string) => Promise<T>,
): Promise<{ values: T[]; failed: string[] }> {
  const settled = await Promise.all(
    (await projectDatabases(env)).map(async ({ binding, db }) => {
      try {
        return { binding, ok: true as const, value: await visit(db, binding) };
      } catch (e) {
        log("error", { event: "database_skipped", what, binding, error: errorText(e) });
        return { binding, ok: false as const };
      }
    }),
  );
  return {
    values: settled.flatMap((s) => (s.ok ? [s.value] : [])),
    failed: settled.filter((s) => !s.ok).map((s) => s.binding),
  };
}
