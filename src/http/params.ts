/** Path parameters every layer above http/ validates alike: the API's routes and the HTML pages. */
import { z } from "@hono/zod-openapi";

export const SlugSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "lowercase letters, digits and '-', at most 63")
  .openapi({ example: "einstein" });

export const SlugParams = z.object({
  slug: SlugSchema.openapi({ param: { name: "slug", in: "path" } }),
});

/**
 * A positive id given as text (a path or query parameter), refused beyond
 * Number.MAX_SAFE_INTEGER: a larger one would round to another id (SECURITY.md).
 */
export function idText(what = "a positive integer id") {
  return z
    .string()
    .regex(/^[1-9][0-9]{0,15}$/, what)
    .transform(Number)
    .refine((id) => id <= Number.MAX_SAFE_INTEGER, `at most ${Number.MAX_SAFE_INTEGER}`);
}

export const IdParam = idText().openapi({ param: { name: "id", in: "path" }, example: "42" });
