import { z } from "@hono/zod-openapi";
import { STATS_FILES } from "../../stats/export-stream";
import { SlugSchema } from "../common";

export const Params = z.object({
  slug: SlugSchema.openapi({ param: { name: "slug", in: "path" } }),
  file: z.enum(STATS_FILES).openapi({ param: { name: "file", in: "path" }, example: "user.gz" }),
});
