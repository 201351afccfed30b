/** A holder in its kind's documented shape: as stored (`storedSchemas`), or its snapshot (`publicSchemas`). */
import type { z } from "@hono/zod-openapi";
import type { HolderSnapshot } from "../../snapshots/holders";
import type { HolderKind } from "../../snapshots/keys";
import { presentHolder } from "../../snapshots/present";
import type { publicSchemas, storedSchemas } from "./entities.schemas";

type PublicHolder = { [K in HolderKind]: z.infer<(typeof publicSchemas)[K]> }[HolderKind];
type StoredHolder = { [K in HolderKind]: z.infer<(typeof storedSchemas)[K]> }[HolderKind];

/**
 * One snapshot type serves the three kinds, so a kind's own fields are optional in it; each
 * kind's snapshot always has them (holderFromRow), the defaults only make that explicit.
 */
export function storedHolder(
  kind: HolderKind,
  s: Omit<HolderSnapshot, "history" | "apps">,
  asOf: number,
  pFpops: number | null,
): StoredHolder {
  const { user_id, host_cpid, team_id, cpid, ...own } = presentHolder(s, asOf);
  if (kind === "hosts") return { ...own, user_id: user_id ?? 0, host_cpid: host_cpid ?? null, p_fpops: pFpops };
  if (kind === "users") return { ...own, team_id: team_id ?? 0, cpid: cpid ?? null };
  return own;
}

/** The snapshot as a GET answers it, RAC decayed to `asOf` (the same defaults as `storedHolder`). */
export function publicHolder(kind: HolderKind, s: Omit<HolderSnapshot, "history">, asOf: number, snapshotTime: number): PublicHolder {
  const { apps, user_id, host_cpid, team_id, cpid, ...own } = presentHolder(s, asOf);
  const common = { ...own, snapshot_time: snapshotTime };
  if (kind === "hosts") return { ...common, user_id: user_id ?? 0, host_cpid: host_cpid ?? null };
  if (kind === "users") return { ...common, team_id: team_id ?? 0, cpid: cpid ?? null, apps: apps ?? [] };
  return { ...common, apps: apps ?? [] };
}
