/**
 * The deployment's variables (the ADMIN_TOKEN secret, wrangler.jsonc `vars`, .dev.vars, `--var`),
 * read by ONE zod schema: the Worker parses them once per isolate (src/env.ts) and hands the
 * typed result on; `npm run dev` checks what it will pass with the same schema before it starts
 * wrangler (scripts/dev.ts). A value that does not parse stops both, naming the variable and
 * why; a secret's value is never repeated. docs/operations.md#configuration lists them.
 *
 * No Workers types here: Node (scripts/dev.ts) imports this file too.
 */
import { z } from "zod";
import { DEFAULT_AM_RPC_RETENTION_DAYS, DEFAULT_AUDIT_RETENTION_DAYS } from "./config";

/**
 * A whole number ≥ 1, as a string (a secret, .dev.vars, `--var`, the dashboard) or a number
 * (wrangler.jsonc `vars` may hold JSON); unset gives `fallback`.
 */
function wholeNumber<F extends number | null>(unit: string, fallback: F) {
  return z.unknown().transform((value, ctx): number | F => {
    if (value === undefined) return fallback;
    const text = typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : null;
    const n = Number(text);
    if (text === null || !/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1) {
      ctx.addIssue({ code: "custom", message: `expected a whole number of ${unit} ≥ 1, got ${JSON.stringify(value) ?? String(value)}` });
      return z.NEVER;
    }
    return n;
  });
}

/** The admin token: unset turns the admin routes off. Its value is never put in a message. */
const adminToken = z.unknown().transform((value, ctx): string | null => {
  if (value === undefined) return null;
  const problem =
    typeof value !== "string"
      ? "expected a string (a secret: `wrangler secret put ADMIN_TOKEN`)"
      : value === ""
        ? "set but empty; set a token (`npm run admin-token` makes one) or unset it to turn the admin routes off"
        : // A bearer token is one run of non-space characters (src/http/tokens.ts): this one could never match.
          /\s/.test(value)
          ? "contains whitespace, so no `Authorization: Bearer` header can match it; store the token alone (value not shown)"
          : null;
  if (problem === null) return value as string;
  ctx.addIssue({ code: "custom", message: problem });
  return z.NEVER;
});

export const SETTINGS = z.object({
  /** Secret for the admin API (`wrangler secret put ADMIN_TOKEN`); null: admin routes answer 503. */
  ADMIN_TOKEN: adminToken,
  /** The rate limiter's fallback limit per holder and period (no binding), replacing every limit's own (tests, a small deployment). */
  RATE_LIMIT_PER_PERIOD: wholeNumber("requests", null),
  /** Days audit rows are kept (docs/storage.md). */
  AUDIT_RETENTION_DAYS: wholeNumber("days", DEFAULT_AUDIT_RETENTION_DAYS),
  /** Days account-manager RPC rows are kept, a host's latest always. */
  AM_RPC_RETENTION_DAYS: wholeNumber("days", DEFAULT_AM_RPC_RETENTION_DAYS),
});

/** The variables, parsed: what the code reads instead of the strings. */
export type Settings = z.output<typeof SETTINGS>;
export type VariableName = keyof Settings;
export const VARIABLE_NAMES = Object.keys(SETTINGS.shape) as VariableName[];

export type Parsed<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** The variables of `vars` (other keys are ignored), or one line per bad one: `NAME: why`. */
export function parseSettings(vars: Readonly<Record<string, unknown>>): Parsed<Settings> {
  const picked = Object.fromEntries(VARIABLE_NAMES.map((name) => [name, vars[name]]));
  const result = SETTINGS.safeParse(picked);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) };
}
