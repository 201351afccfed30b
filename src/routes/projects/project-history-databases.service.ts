import { eq } from "drizzle-orm";
import { dayOf } from "../../credit/history";
import type { Db } from "../../db/client";
import { type HistoryDatabase, parseHistoryDatabases, storeHistoryDatabases } from "../../db/history-databases";
import { setOnProjectCopies } from "../../db/project-db";
import { projects } from "../../db/schema";

/** Where the project's ledger lives (null: the registry) and its history databases, from the registry. */
export async function loadHistoryDatabases(registry: Db, projectId: number) {
  const [row] = await registry
    .select({ database: projects.database, list: projects.historyDatabases, clock: projects.expavgTime })
    .from(projects)
    .where(eq(projects.id, projectId));
  return { ledger: row!.database, list: parseHistoryDatabases(row!.list), createdClock: row!.clock };
}

/**
 * Appends `binding` to the list, taking the buckets from the project's next day on (from day 0
 * if it is the first). The ledger's copy holds the project's clock (the registry's, for a
 * project elsewhere, is its creation) and decides where passes send history; the registry's
 * is what jobs and reads are told: both are set.
 */
export async function addHistoryDatabase(
  registry: Db,
  ledger: Db,
  projectId: number,
  current: readonly HistoryDatabase[],
  createdClock: number,
  binding: string,
  now: number,
): Promise<HistoryDatabase[]> {
  const [ledgerRow] = await ledger.select({ clock: projects.expavgTime }).from(projects).where(eq(projects.id, projectId));
  const fromDay = dayOf(Math.max(now, ledgerRow?.clock ?? createdClock)) + 1;
  const list = [...current, { binding, from_day: current.length === 0 ? 0 : fromDay }];
  const stored = storeHistoryDatabases(list);
  await setOnProjectCopies(registry, ledger, projectId, { historyDatabases: stored });
  return list;
}
