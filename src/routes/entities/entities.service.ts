import type { Db } from "../../db/client";
import { sameDatabase } from "../../db/project-db";
import { type hosts, usersNow } from "../../db/schema";
import { and, eq } from "drizzle-orm";
import { holderFromRow, type HolderRow } from "../../snapshots/holders";
import type { HolderKind } from "../../snapshots/keys";
import { amHostLinkWrite } from "../am/am-rpcs.host-links";
import { storedHolder } from "./entities.present";
import type { PutHolder } from "./entities.schemas";
import { beforeHolderUpsert, checkCreateTime, holderCounts, holderUpserts } from "./entities.upsert";

/** Registers a holder or changes its details; answers it as stored (a host with its p_fpops). */
export async function putHolder(db: Db, registry: Db, projectId: number, kind: HolderKind, id: number, b: PutHolder, now: number) {
  checkCreateTime(b.create_time, now, "create_time");
  const link = kind === "hosts" ? await amHostLinkWrite(registry, projectId, id, b) : null;
  // The link is in the registry: written with the host in one batch when the project lives
  // there too, else just after it (a retried PUT writes both again; both are idempotent).
  const together = link !== null && sameDatabase(db, registry);
  const [upsert, ...marks] = holderUpserts(db, projectId, kind, id, b, now);
  const counts = [...holderCounts(db, projectId, { [kind]: [id] }), ...beforeHolderUpsert(db, projectId, kind, id, b)];
  // A user's credit as it stands may ride on a host (db/owner-carriers.ts): read it after the upsert.
  const standing =
    kind === "users"
      ? [
          db
            .select()
            .from(usersNow)
            .where(and(eq(usersNow.projectId, projectId), eq(usersNow.id, id))),
        ]
      : [];
  // The count goes first: it counts the holder only while it is not stored.
  const done = await db.batch([...counts, upsert, ...standing, ...marks, ...(together ? [link.write] : [])] as unknown as [typeof upsert]);
  // The upsert's answer, or for a user its row as it stands, just after it.
  const [row] = done[counts.length + standing.length] as Awaited<typeof upsert>;
  if (link !== null && !together) await link.write;
  const pFpops = kind === "hosts" ? (row as typeof hosts.$inferSelect).pFpops : null;
  return storedHolder(kind, holderFromRow(kind, row as HolderRow), now, pFpops);
}
