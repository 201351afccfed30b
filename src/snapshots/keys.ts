/**
 * KV keys of the public read model. Everything a project shows lives under `p/{slug}`; slugs
 * never change, so a key names the same thing for ever.
 */
import type { CreditSubject, HolderKind, LeaderboardOrder } from "../db/schema";

export { HOLDER_KINDS, type HolderKind, LEADERBOARD_ORDERS, type LeaderboardOrder } from "../db/schema";
export const KIND_OF_SUBJECT: Record<Exclude<CreditSubject, "project">, HolderKind> = {
  host: "hosts",
  user: "users",
  team: "teams",
};

export const kvKeys = {
  projects: () => "projects",
  project: (slug: string) => `p/${slug}`,
  apps: (slug: string) => `p/${slug}/apps`,
  appVersions: (slug: string) => `p/${slug}/app-versions`,
  holder: (slug: string, kind: HolderKind, id: number) => `p/${slug}/${kind}/${id}`,
  // "top2": pages whose entries carry the keyset key (older "top" pages lack it).
  leaderboardPage: (slug: string, kind: HolderKind, by: LeaderboardOrder, page: number) => `p/${slug}/top2/${kind}/${by}/${page}`,
  /** Not a KV key: the Cache API's name of a page read from D1 after a cursor. */
  leaderboardAfter: (slug: string, kind: HolderKind, by: LeaderboardOrder, cursor: string, limit: number) =>
    `p/${slug}/top2/${kind}/${by}/after/${cursor}/${limit}`,
};
