import { and, desc, eq, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { auditLog } from "../../db/schema";

/** The project's audit rows, newest first, with ids below `cursor`: `limit` of them and one more (which says a next page exists). */
export function loadAuditPage(db: Db, projectId: number, limit: number, cursor: number | undefined) {
  const a = auditLog;
  return db
    .select()
    .from(a)
    .where(and(eq(a.projectId, projectId), cursor === undefined ? undefined : lt(a.id, cursor)))
    .orderBy(desc(a.id))
    .limit(limit + 1);
}
