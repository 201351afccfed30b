/**
 * The daily stats export (BOINC's db_dump task): each project's files, generated from D1 and
 * stored in KV under stats/{slug}/{file}. A file larger than a KV value may be is not stored
 * (its old copy is deleted); GET then streams it from D1.
 */
import type { Db } from "../db/client";
import { projects } from "../db/schema";
import { STATS_FILES, type StatsFile, statsFileStream } from "../stats/export-stream";

/** KV's limit on one value (25 MiB). */
export const KV_VALUE_LIMIT = 25 * 1024 * 1024;

export function statsKvKey(slug: string, file: StatsFile): string {
  return `stats/${slug}/${file}`;
}

/** What KV keeps beside each file. */
export interface StatsFileMeta {
  readonly generated_at: number;
}

/** The stream's bytes, or null as soon as they pass `limit` (the rest is never read). */
async function readUpTo(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | null> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

export interface ProjectExport {
  readonly stored: StatsFile[];
  /** Too large for KV: served by streaming from D1. */
  readonly streamed: StatsFile[];
}

export async function exportProjectStats(
  db: Db,
  kv: KVNamespace,
  project: { id: number; slug: string },
  now: number,
  limit = KV_VALUE_LIMIT,
): Promise<ProjectExport> {
  const result: ProjectExport = { stored: [], streamed: [] };
  for (const file of STATS_FILES) {
    const key = statsKvKey(project.slug, file);
    const bytes = await readUpTo(await statsFileStream(db, project.id, file, now), limit);
    if (bytes) {
      await kv.put(key, bytes, { metadata: { generated_at: now } satisfies StatsFileMeta });
      result.stored.push(file);
    } else {
      await kv.delete(key);
      result.streamed.push(file);
    }
  }
  return result;
}

export async function exportAllStats(db: Db, kv: KVNamespace, now: number): Promise<string> {
  const rows = await db.select({ id: projects.id, slug: projects.slug }).from(projects);
  let streamed = 0;
  for (const p of rows) streamed += (await exportProjectStats(db, kv, p, now)).streamed.length;
  return `stats exported for ${rows.length} projects (${streamed} files too large for KV, streamed from D1)`;
}
