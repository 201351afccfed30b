import { z } from "@hono/zod-openapi";
import { ApiError } from "../http/errors";
import { serverNow } from "../clock";

import { MAX_CLOCK_SKEW_SECONDS } from "../config";
import { TEXT_LIMITS } from "../limits";
import { NON_XML_CHAR_MESSAGE, hasNonXmlChar } from "../http/text";

// In src/config.ts: retention's horizon (a job) needs it too.
export { MAX_CLOCK_SKEW_SECONDS };

// Path parameters the pages validate too (src/web/ does not import routes/).
export { IdParam, SlugParams, SlugSchema, idText } from "../http/params";

/**
 * Input ranges that keep every derived statistic a finite double (docs/spec/credit.md#finite-numbers): a sum of
 * samples or a squared deviation can never overflow. They are far beyond any real job.
 */
export const LIMITS = {
  /** rsc_fpops_est / rsc_fpops_bound, in FLOPs. */
  minFpops: 1,
  maxFpops: 1e30,
  /** elapsed_time, cpu_time, delay_bound, in seconds (~31,700 years). */
  maxDuration: 1e12,
  /** Unix timestamps (~year 5138). */
  maxTimestamp: 1e11,
  /** claimed_credit, canonical_credit, max_granted_credit. */
  maxCredit: 1e15,
} as const;

/**
 * A string the API stores: at most `max` characters (docs/limits.md#strings) and only
 * characters XML 1.0 allows, since every stored string can reach an XML export or feed.
 */
export function storedText(max: number) {
  return z
    .string()
    .max(max, `at most ${max} characters`)
    .refine((text) => !hasNonXmlChar(text), NON_XML_CHAR_MESSAGE);
}

/**
 * A user's cpid or a host's host_cpid (docs/limits.md#strings): BOINC makes both as an md5 in
 * lower-case hex. Upper-case digits are taken and stored in lower case, so one cpid is one key
 * whatever the sender's case. A character XML does not allow is named as such first, as in
 * every stored string.
 */
export const CpidSchema = z
  .string()
  .refine((text) => !hasNonXmlChar(text), { message: NON_XML_CHAR_MESSAGE, abort: true })
  .regex(new RegExp(`^[0-9a-fA-F]{${TEXT_LIMITS.cpid}}$`), "32 hex digits (BOINC exports a cpid as an md5 in hex)")
  .transform((cpid) => cpid.toLowerCase());

/** A URL the API stores (a project's, a contributor's): bounded, and only characters XML allows. */
export const StoredUrlSchema = z
  .url()
  .max(TEXT_LIMITS.url, `at most ${TEXT_LIMITS.url} characters`)
  .refine((url) => !hasNonXmlChar(url), NON_XML_CHAR_MESSAGE);

export { TEXT_LIMITS };

/** A project's own BOINC id. */
export const IdSchema = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** A user or team id where 0 means "none", as in BOINC. */
export const OptionalIdSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** The message of a time past LIMITS.maxTimestamp: most likely milliseconds. */
const UNIX_SECONDS = `times are Unix seconds (at most ${LIMITS.maxTimestamp}); this looks like milliseconds: divide by 1000`;

/** Unix seconds. */
export const TimeSchema = z.number().nonnegative().max(LIMITS.maxTimestamp, UNIX_SECONDS);
/** Seconds of work or delay. */
export const DurationSchema = z.number().nonnegative().max(LIMITS.maxDuration);
export const CreditSchema = z.number().nonnegative().max(LIMITS.maxCredit);

export const NowSchema = z
  .number()
  .positive()
  .max(LIMITS.maxTimestamp, UNIX_SECONDS)
  .optional()
  .openapi({ description: "When this happened (Unix seconds); default the server's clock. Not in the future." });

/** The `now` of an answer: the time credit was granted at. */
export const GrantedAtSchema = z.number().openapi({
  description:
    "When the credit was granted: the request's now, or the project's clock (its latest grant) if that is later; time never runs backwards (SECURITY.md)",
});

// Lives in ../clock (lower layers read it too); re-exported for the routes.
export { serverNow };

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

/**
 * Time never runs backwards (SECURITY.md): credit is granted at the request's `now` or, if that
 * is earlier, at the project's clock (the time of its latest grant; 0 before its first), as
 * BOINC grants at its server's clock. So a `now` in the past moves no RAC clock back (a clock
 * set only by a creation time included) and adds no history before the project's current day.
 * A project's passes in order (the bridge's backfill) have each `now` at or after the clock:
 * granted at their `now`, unchanged.
 */
export function grantTime(now: number, projectClock: number): number {
  return Math.max(now, projectClock);
}
