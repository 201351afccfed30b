/**
 * A project's history databases (docs/storage.md, History in databases of its own): where its
 * daily history and monthly roll-up are kept, apart from its ledger. The operator adds one
 * when the current one fills (admin only); it takes the buckets from the project's next day
 * on, and the older ones keep theirs. The project may read the list.
 */
import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { dayOf } from "../../credit/history";
import { type HistoryDatabase, parseHistoryDatabases, storeHistoryDatabases } from "../../db/history-databases";
import { sameDatabase } from "../../db/project-db";
import { projects } from "../../db/schema";
import type { AppEnv } from "../../env";
import { errorResponses } from "../../http/errors";
import { SlugParams, serverNow } from "../common";
import { BindingNameSchema, checkHistoryBinding, checkMigrated } from "./history-binding";

const HistoryDatabasesSchema = z
  .object({
    slug: z.string(),
    ledger: z.string().openapi({ description: "The D1 binding of the project's ledger (results, workunits, accounts, per-app credit)" }),
    history_databases: z
      .array(
        z.object({
          database: z.string().openapi({ example: "DB_HISTORY_1" }),
          from_date: z.string().openapi({ description: "The first day (UTC) whose history buckets go to this database", example: "2026-11-25" }),
        }),
      )
      .openapi({ description: "Oldest first; empty: the history is kept in the ledger" }),
  })
  .openapi("HistoryDatabases");

const AddHistoryDatabaseSchema = z.strictObject({ database: BindingNameSchema }).openapi("AddHistoryDatabase");

const path = "/v1/projects/{slug}/history-databases";
const ok = { description: "The project's history databases", content: { "application/json": { schema: HistoryDatabasesSchema } } };

const getRoute = createRoute({
  method: "get",
  path,
  tags: ["Admin"],
  summary: "Where the project's daily history is kept",
  ...access("projectTokenOrAdmin"),
  request: { params: SlugParams },
  responses: { 200: ok, ...errorResponses(401, 403, 404, 429, 503) },
});

const postRoute = createRoute({
  method: "post",
  path,
  tags: ["Admin"],
  summary: "Operator: add a history database (from the project's next day on)",
  description:
    "History buckets of the project's next day (on its own clock) and later go to this database; those before stay where they are. The binding must be a D1 database of this deployment with the migrations applied, other than the project's ledger and its current history databases.",
  ...access("adminForProject"),
  request: { params: SlugParams, body: { required: true, content: { "application/json": { schema: AddHistoryDatabaseSchema } } } },
  responses: { 200: ok, ...errorResponses(400, 401, 404, 409, 422, 429, 503) },
});

const dateOf = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);

function answer(slug: string, ledger: string | null, list: readonly HistoryDatabase[]) {
  return {
    slug,
    ledger: ledger ?? "DB",
    history_databases: list.map((h) => ({ database: h.binding, from_date: dateOf(h.from_day) })),
  };
}

export function mountProjectHistoryDatabases(app: OpenAPIHono<AppEnv>): void {
  app.openapi(getRoute, async (c) => {
    const [row] = await c.var.registry
      .select({ database: projects.database, list: projects.historyDatabases })
      .from(projects)
      .where(eq(projects.id, c.var.project.id));
    return c.json(answer(c.var.project.slug, row!.database, parseHistoryDatabases(row!.list)), 200);
  });

  app.openapi(postRoute, async (c) => {
    const { database } = c.req.valid("json");
    const registry = c.var.registry;
    const [row] = await registry
      .select({ database: projects.database, list: projects.historyDatabases, clock: projects.expavgTime })
      .from(projects)
      .where(eq(projects.id, c.var.project.id));
    const current = parseHistoryDatabases(row!.list);
    checkHistoryBinding(c.env, database, row!.database, current.map((h) => h.binding));
    await checkMigrated(c.env, database);
    // The ledger's copy holds the project's clock (the registry's, for a project elsewhere, is its creation).
    const ledger = c.var.db;
    const [ledgerRow] = await ledger.select({ clock: projects.expavgTime }).from(projects).where(eq(projects.id, c.var.project.id));
    const fromDay = dayOf(Math.max(serverNow(), ledgerRow?.clock ?? row!.clock)) + 1;
    const list = [...current, { binding: database, from_day: current.length === 0 ? 0 : fromDay }];
    const stored = storeHistoryDatabases(list);
    const set = (db: typeof ledger) => db.update(projects).set({ historyDatabases: stored }).where(eq(projects.id, c.var.project.id));
    // The ledger's copy decides where passes send history; the registry's is what jobs and reads are told.
    if (sameDatabase(ledger, registry)) await registry.batch([set(registry)]);
    else await Promise.all([ledger.batch([set(ledger)]), registry.batch([set(registry)])]);
    return c.json(answer(c.var.project.slug, row!.database, list), 200);
  });
}
