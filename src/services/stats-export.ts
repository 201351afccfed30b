/**
 * The daily stats export (BOINC's db_dump task): each project's files, generated from D1 and
 * stored in KV under stats/{slug}/{file}. GET serves only what this job stored, never D1: a
 * file larger than a KV value is stored in parts of at most 25 MiB (stats/{slug}/{file}/1, /2…;
 * the first key's metadata says how many), which GET streams one after the other.
 */
import { livesHere } from "../db/project-db";
import type { Db } from "../db/client";
import { projects } from "../db/schema";
import { STATS_FILES, type StatsFile, statsFileStream } from "../stats/export-stream";

/** KV's limit on one value (25 MiB). */
const KV_VALUE_LIMIT = 25 * 1024 * 1024;

export function statsKvKey(slug: string, file: StatsFile): string {
  return `stats/${slug}/${file}`;
}

/** What KV keeps beside each file (on its first part). */
export interface StatsFileMeta {
  readonly generated_at: number;
  /** How many KV values the file spans (absent on files stored before parts existed: 1). */
  readonly parts?: number;
}

/** The KV key of part `n` (0: the file's own key). */
export function statsPartKey(slug: string, file: StatsFile, n: number): string {
  return n === 0 ? statsKvKey(slug, file) : `${statsKvKey(slug, file)}/${n}`;
}

/** The stream cut into values of at most `limit` bytes each. */
async function* valuesOf(stream: ReadableStream<Uint8Array>, limit: number): AsyncGenerator<Uint8Array> {
  let part = new Uint8Array(limit);
  let size = 0;
  for await (const chunk of stream) {
    for (let at = 0; at < chunk.byteLength;) {
      const take = Math.min(limit - size, chunk.byteLength - at);
      part.set(chunk.subarray(at, at + take), size);
      size += take;
      at += take;
      if (size === limit) {
        yield part;
        part = new Uint8Array(limit);
        size = 0;
      }
    }
  }
  if (size > 0) yield part.subarray(0, size);
}

export interface ProjectExport {
  /** Each file and how many KV values it took. */
  readonly parts: Partial<Record<StatsFile, number>>;
}

export async function exportProjectStats(
  db: Db,
  kv: KVNamespace,
  project: { id: number; slug: string },
  now: number,
  limit = KV_VALUE_LIMIT,
): Promise<ProjectExport> {
  const result: ProjectExport = { parts: {} };
  for (const file of STATS_FILES) {
    const old = await kv.getWithMetadata<StatsFileMeta>(statsKvKey(project.slug, file));
    const oldParts = old.value === null ? 0 : (old.metadata?.parts ?? 1);
    // Parts 1… as they come, the first key last: a reader that finds the new metadata finds
    // all its parts; only the first part waits in memory.
    let first: Uint8Array = new Uint8Array(0);
    let count = 0;
    for await (const value of valuesOf(await statsFileStream(db, project.id, file, now), limit)) {
      if (count === 0) first = value;
      else await kv.put(statsPartKey(project.slug, file, count), value);
      count++;
    }
    count = Math.max(count, 1);
    await kv.put(statsKvKey(project.slug, file), first, { metadata: { generated_at: now, parts: count } satisfies StatsFileMeta });
    for (let n = count; n < oldParts; n++) await kv.delete(statsPartKey(project.slug, file, n));
    (result.parts as Record<StatsFile, number>)[file] = count;
  }
  return result;
}

export async function exportAllStats(db: Db, kv: KVNamespace, now: number): Promise<string> {
  const rows = await db.select({ id: projects.id, slug: projects.slug }).from(projects).where(livesHere);
  let split = 0;
  for (const p of rows) split += Object.values((await exportProjectStats(db, kv, p, now)).parts).filter((n) => n > 1).length;
  return `stats exported for ${rows.length} projects (${split} files stored in several KV values)`;
}
