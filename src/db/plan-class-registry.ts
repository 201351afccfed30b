/** Reads a published version of the plan-class scale table from D1. */
import { asc, desc, eq } from "drizzle-orm";
import type { ProcType } from "../credit/plan-class";
import type { ScaleRegistry } from "../credit/gpu-only-factor";
import type { Db } from "./client";
import { planClassScaleVersions, planClassScales } from "./schema";

export type ScaleTableRow = typeof planClassScales.$inferSelect;

export interface PublishedTable {
  readonly version: number;
  readonly nsources: number;
  readonly rows: ScaleTableRow[];
}

/** The latest version, or the one asked for; null when there is none (yet, or by that number). */
export async function loadPublishedTable(db: Db, version?: number): Promise<PublishedTable | null> {
  const [head] = await db
    .select()
    .from(planClassScaleVersions)
    .where(version === undefined ? undefined : eq(planClassScaleVersions.version, version))
    .orderBy(desc(planClassScaleVersions.version))
    .limit(1);
  if (!head) return null;
  const rows = await db
    .select()
    .from(planClassScales)
    .where(eq(planClassScales.version, head.version))
    .orderBy(asc(planClassScales.kind), asc(planClassScales.name));
  return { version: head.version, nsources: head.nsources, rows };
}

export function scaleRegistry(table: PublishedTable | null): ScaleRegistry | null {
  if (!table) return null;
  const of = (kind: ScaleTableRow["kind"]) => table.rows.filter((r) => r.kind === kind);
  return {
    version: table.version,
    planClasses: new Map(of("plan_class").map((r) => [r.name, r.scale])),
    procTypes: new Map(of("proc_type").map((r) => [r.name as ProcType, r.scale])),
  };
}

export async function planClassVersionExists(db: Db, version: number): Promise<boolean> {
  const [row] = await db
    .select({ v: planClassScaleVersions.version })
    .from(planClassScaleVersions)
    .where(eq(planClassScaleVersions.version, version));
  return row !== undefined;
}
