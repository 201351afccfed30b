/**
 * The read-through of public reads: a KV key holds a snapshot `{taken_at, data}` that only the
 * cron writes. An anonymous read never writes KV: a missing key is loaded from D1 (every loader
 * reads a bounded number of rows, docs/public-reads.md) and kept a minute in this colo's Cache
 * API, "no such thing" (data null) included, so floods of unknown ids spare D1 and cost no KV
 * write. A read made with the project's own token skips KV and answers from D1.
 */
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { sha256Hex } from "../http/tokens";
import { serverNow } from "../clock";
import { errorText, log } from "../log";
import { SNAPSHOT_LIMITS } from "./limits";

export interface StoredSnapshot<T> {
  readonly taken_at: number;
  readonly data: T | null;
}

export interface SnapshotRead<T> {
  readonly data: T;
  readonly takenAt: number;
  /** A hash of the stored snapshot: the ETag's core. */
  readonly version: string;
}

export function storedText<T>(data: T | null, takenAt: number): string {
  return JSON.stringify({ taken_at: takenAt, data } satisfies StoredSnapshot<T>);
}

async function versionOf(text: string): Promise<string> {
  return (await sha256Hex(text)).slice(0, 20);
}

/** A stored snapshot's text read back (null: "no such thing"). */
export async function snapshotOf<T>(held: string, parsed = JSON.parse(held) as StoredSnapshot<T>): Promise<SnapshotRead<T> | null> {
  return parsed.data === null ? null : { data: parsed.data, takenAt: parsed.taken_at, version: await versionOf(held) };
}

/** The Cache API's key for a snapshot key (never fetched: only a name in this colo's cache). */
const cacheUrl = (key: string) => `https://snapshot.cobblestone.invalid/${encodeURIComponent(key)}`;

/**
 * `kv: false`: a read that no KV key ever holds (a deep leaderboard page after a cursor, a
 * project's holders read live): only the Cache API is asked before D1. `takenFrom`: a KV
 * snapshot taken before this time is left unread, as if missing (one left from before the
 * project's holder snapshots were turned back on). `keep`: whether a load is kept in the Cache API
 * (default: always).
 */
export async function readThrough<T>(
  c: Context<AppEnv>,
  key: string,
  load: () => Promise<T | null>,
  { kv = true, takenFrom = 0, keep = () => true }: { kv?: boolean; takenFrom?: number; keep?: (data: T | null) => boolean } = {},
): Promise<SnapshotRead<T> | null> {
  if (c.var.fresh) {
    const data = await load();
    const text = storedText(data, serverNow());
    return data === null ? null : { data, takenAt: serverNow(), version: await versionOf(text) };
  }
  const inKv = kv ? await c.env.KV.get(key) : null;
  // Parsed once, for its time and for the answer.
  const parsed = inKv === null ? null : (JSON.parse(inKv) as StoredSnapshot<T>);
  if (inKv !== null && parsed !== null && parsed.taken_at >= takenFrom) return snapshotOf<T>(inKv, parsed);
  const cached = await (await caches.default.match(cacheUrl(key)))?.text();
  if (cached !== undefined) return snapshotOf<T>(cached);
  const data = await load();
  const takenAt = serverNow();
  const text = storedText(data, takenAt);
  const headers = { "Cache-Control": `max-age=${SNAPSHOT_LIMITS.missCacheSeconds}` };
  if (keep(data)) {
    c.executionCtx.waitUntil(
      caches.default
        .put(cacheUrl(key), new Response(text, { headers }))
        .catch((err) => log("error", { event: "cache_put_failed", key, error: errorText(err) })),
    );
  }
  return data === null ? null : { data, takenAt, version: await versionOf(text) };
}

/** If-None-Match (a list, `*`, weak or strong tags) against an ETag, by weak comparison. */
export function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const weak = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || weak(tag) === weak(etag));
}

/**
 * The cache validators of a public answer, JSON or HTML alike: ETag (the snapshots' versions
 * and whatever else shapes the answer, such as the window of a history) and Cache-Control.
 * True when If-None-Match matches: answer 304 without building the body. The ETag is weak:
 * the RAC in the body is decayed to the moment of each answer.
 */
export function setCacheValidators(c: Context<AppEnv>, parts: readonly string[]): boolean {
  const etag = `W/"${parts.join("-")}"`;
  c.header("ETag", etag);
  c.header("Cache-Control", c.var.fresh ? "private, no-cache" : `public, max-age=${SNAPSHOT_LIMITS.maxAgeSeconds}`);
  return matches(c.req.header("If-None-Match"), etag);
}

/** The 304 of a public read, for its route declaration. */
export const NOT_MODIFIED = { 304: { description: "Not modified since the ETag given in If-None-Match" } } as const;
