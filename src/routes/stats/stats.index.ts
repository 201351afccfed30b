/**
 * GET /v1/projects/:slug/stats/:file: the project's BOINC-compatible stats export (public).
 * Served from KV (the daily job's copy) or, when a file is not there (larger than a KV value,
 * or not generated yet), streamed from D1 as it is now.
 */
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { loadProject } from "../../http/auth";
import { errorResponses } from "../../http/errors";
import { type StatsFileMeta, statsKvKey } from "../../services/stats-export";
import { STATS_FILES, contentTypeOf, statsFileStream } from "../../stats/export-stream";
import { SlugSchema, serverNow } from "../common";
import { matches } from "../../snapshots/store";

const Params = z.object({
  slug: SlugSchema.openapi({ param: { name: "slug", in: "path" } }),
  file: z.enum(STATS_FILES).openapi({ param: { name: "file", in: "path" }, example: "user.gz" }),
});

const route = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/stats/{file}",
  tags: ["Credit"],
  summary: "BOINC db_dump-compatible stats export: user.gz, team.gz, host.gz, tables.xml (and .ndjson.gz siblings)",
  description:
    "The same XML element names and structure as BOINC's db_dump default spec, gzipped. Users who opted out " +
    "(stats_export false) and their hosts are left out. Generated daily; `X-Generated-At` says when.",
  request: { params: Params },
  responses: {
    200: {
      description: "The file",
      content: {
        "application/gzip": { schema: z.string().openapi({ format: "binary" }) },
        "application/xml": { schema: z.string() },
      },
    },
    304: { description: "Not modified since the ETag given in If-None-Match (a file served from KV)" },
    ...errorResponses(400, 404),
  },
});

export function mountStats(app: OpenAPIHono<AppEnv>): void {
  app.use("/v1/projects/:slug/stats/:file", loadProject);
  app.openapi(route, async (c) => {
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
      return c.body(stored.value, 200, kvHeaders);
    }
    const now = serverNow();
    const body = await statsFileStream(c.var.db, project.id, file, now);
    return c.body(body, 200, { ...headers, "X-Generated-At": String(now), "X-Stats-Source": "d1" });
  });
}
