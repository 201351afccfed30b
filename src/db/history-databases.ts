/**
 * A project's history databases (docs/storage.md, History in databases of its own): D1
 * bindings named DB_<NAME>, each holding the project's daily history (and its monthly roll-up)
 * from a day on. The ledger (results, workunits, accounts, per-app credit) stays in the
 * project's own database; the list is kept as JSON on the project's rows (registry and ledger).
 */
import type { Db } from "./client";
import { projectDatabase } from "./project-db";

export interface HistoryDatabase {
  readonly binding: string;
  /** The first day (days since 1970-01-01 UTC) whose buckets go here. */
  readonly from_day: number;
}

/** The list stored on a project row (null: history stays in the ledger), oldest first. */
export function parseHistoryDatabases(json: string | null): HistoryDatabase[] {
  if (json === null) return [];
  const list = JSON.parse(json) as HistoryDatabase[];
  return [...list].sort((a, b) => a.from_day - b.from_day);
}

export function storeHistoryDatabases(list: readonly HistoryDatabase[]): string | null {
  return list.length === 0 ? null : JSON.stringify(list);
}

/** Where the bucket of `day` goes: the database with the latest first day not after it (the first one for older days). */
export function historyBindingFor(list: readonly HistoryDatabase[], day: number): string {
  let chosen = list[0]!;
  for (const h of list) if (h.from_day <= day) chosen = h;
  return chosen.binding;
}

/** The handles of a project's history databases (none: history is in the ledger). */
export function historyDatabases(env: object, json: string | null): Db[] {
  return parseHistoryDatabases(json).map((h) => projectDatabase(env, h.binding));
}
