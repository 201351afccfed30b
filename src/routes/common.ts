import { z } from "@hono/zod-openapi";
import { ApiError } from "../http/errors";

/** Clock skew we tolerate on a client-given `now`. */
export const MAX_CLOCK_SKEW_SECONDS = 300;

export const SlugSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "lowercase letters, digits and '-', at most 63")
  .openapi({ example: "einstein" });

export const SlugParams = z.object({
  slug: SlugSchema.openapi({ param: { name: "slug", in: "path" } }),
});

/** A project's own BOINC id. */
export const IdSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** A user or team id where 0 means "none", as in BOINC. */
export const OptionalIdSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const IdParam = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, "a positive integer id")
  .transform(Number)
  .openapi({ param: { name: "id", in: "path" }, example: "42" });

/** Unix seconds. */
export const TimeSchema = z.number().nonnegative();

export const NowSchema = z
  .number()
  .positive()
  .optional()
  .openapi({ description: "When this happened (Unix seconds); default the server's clock. Not in the future." });

export function serverNow(): number {
  return Date.now() / 1000;
}

/** The `now` of a request: given (not in the future beyond clock skew) or the server's clock. */
export function resolveNow(given: number | undefined): number {
  const clock = serverNow();
  if (given === undefined) return clock;
  if (given > clock + MAX_CLOCK_SKEW_SECONDS) {
    throw new ApiError(422, "now_in_future", `now (${given}) is in the future (server clock ${Math.floor(clock)})`, [
      { path: "now", message: "must not be later than the server's clock plus 5 minutes" },
    ]);
  }
  return given;
}
