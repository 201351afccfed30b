/**
 * GET /v1/projects/:slug/stats/:file: the project's BOINC-compatible stats export (public).
 * Served only from what the daily job stored in KV (in parts when larger than a KV value),
 * never built from D1 on demand: a file not generated yet is a 404.
 */
import { createRouter } from "../../http/router";
import { ApiError } from "../../http/errors";
import { errorText, log } from "../../log";
import { type StatsFileMeta, statsKvKey, statsPartKey } from "../../services/stats-export";
import { type StatsFile, contentTypeOf } from "../../stats/export-stream";
import { matches } from "../../snapshots/store";
import type { AppRouteHandler } from "../route-handler";
import { route } from "./stats.routes";

const statsFile: AppRouteHandler<typeof route> = async (c) => {
  const { file } = c.req.valid("param");
  const project = c.var.project;
  const headers = { "Content-Type": contentTypeOf(file), "Cache-Control": "public, max-age=3600" };
  const stored = await c.env.KV.getWithMetadata<StatsFileMeta>(statsKvKey(project.slug, file), "stream");
  if (stored.value) {
    const generatedAt = String(stored.metadata?.generated_at ?? "");
    // A stats site polling daily downloads a file only once per job run.
    const etag = `"${file}-${generatedAt}"`;
    const kvHeaders = { ...headers, ETag: etag, "X-Generated-At": generatedAt, "X-Stats-Source": "kv" };
    if (matches(c.req.header("If-None-Match"), etag)) {
      await stored.value.cancel();
      return c.body(null, 304, kvHeaders);
    }
    const parts = stored.metadata?.parts ?? 1;
    const body = parts === 1 ? stored.value : concatParts(c.env.KV, project.slug, file, stored.value, parts);
    return c.body(body, 200, kvHeaders);
  }
  throw new ApiError(404, "not_found", `${file} has not been generated yet (the daily job builds it)`);
};

export const statsRouter = createRouter().openapi(route, statsFile);

/** The file's parts one after the other (each read only when the previous one is done). */
function concatParts(kv: KVNamespace, slug: string, file: StatsFile, first: ReadableStream, parts: number): ReadableStream {
  const { readable, writable } = new TransformStream();
  (async () => {
    await first.pipeTo(writable, { preventClose: true });
    for (let n = 1; n < parts; n++) {
      const part = await kv.get(statsPartKey(slug, file, n), "stream");
      if (!part) throw new Error(`stats part ${n} of ${file} is missing`);
      await part.pipeTo(writable, { preventClose: true });
    }
    await writable.close();
  })().catch((err) => {
    log("error", { event: "stats_stream_failed", project: slug, file, error: errorText(err) });
    return writable.abort(err);
  });
  return readable;
}
