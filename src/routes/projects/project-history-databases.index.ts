/**
 * A project's history databases (docs/storage.md, History in databases of its own): where its
 * daily history and monthly roll-up are kept, apart from its ledger. The operator adds one
 * when the current one fills (admin only); it takes the buckets from the project's next day
 * on, and the older ones keep theirs. The project may read the list.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { dayOf } from "../../credit/history";
import { type HistoryDatabase, parseHistoryDatabases, storeHistoryDatabases } from "../../db/history-databases";
import { sameDatabase } from "../../db/project-db";
import { projects } from "../../db/schema";
import type { AppEnv } from "../../env";
import { serverNow } from "../common";
import { checkHistoryBinding, checkMigrated } from "./history-binding";
import { getRoute, postRoute } from "./project-history-databases.routes";

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
