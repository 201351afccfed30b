/**
 * Credit by day for many hosts (what reconciliation compares): the stored buckets, in the
 * ledger and in the project's history databases, and each host's current day from its live
 * row (a day's bucket is written only when a later day's first grant finishes it:
 * src/db/history-transitions.ts).
 */
import { and, between, eq, sql } from "drizzle-orm";
import { dayOf } from "../credit/history";
import type { Db } from "./client";
import { creditHistory, hosts } from "./schema";
import { chunks, jsonList } from "./sql-helpers";

export interface HostDayCredit {
  readonly hostId: number;
  readonly day: number;
  readonly credit: number;
}

export async function hostCreditByDay(
  ledger: Db,
  history: readonly Db[],
  projectId: number,
  hostIds: readonly number[],
  first: number,
  last: number,
): Promise<HostDayCredit[]> {
  const h = creditHistory;
  const out = new Map<string, HostDayCredit>();
  const add = (x: HostDayCredit) => {
    const key = `${x.hostId}/${x.day}`;
    out.set(key, { ...x, credit: (out.get(key)?.credit ?? 0) + x.credit });
  };
  for (const ids of chunks(hostIds)) {
    for (const db of [ledger, ...history]) {
      const stored = await db
        .select({ hostId: h.entityId, day: h.day, credit: h.credit })
        .from(h)
        .where(and(eq(h.projectId, projectId), eq(h.subject, "host"), sql`${h.entityId} IN ${jsonList(ids)}`, between(h.day, first, last)));
      stored.forEach(add);
    }
    const live = await ledger
      .select({ hostId: hosts.id, dayCredit: hosts.dayCredit, time: hosts.expavgTime })
      .from(hosts)
      .where(and(eq(hosts.projectId, projectId), sql`${hosts.id} IN ${jsonList(ids)}`));
    for (const r of live) {
      const day = dayOf(r.time);
      if (r.dayCredit !== 0 && day >= first && day <= last) add({ hostId: r.hostId, day, credit: r.dayCredit });
    }
  }
  return [...out.values()];
}
