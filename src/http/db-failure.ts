/**
 * D1 failures that mean the database itself could not do the work now (a lost connection, an
 * overloaded, busy or reset database, a storage limit hit mid-batch): the batch rolled back,
 * so the request changed nothing and may be retried. The error handler answers 503 with
 * Retry-After. Anything else D1 reports (a constraint violation, a type mismatch, a bad
 * statement) is a bug or a state the request cannot change by retrying: a 500 with the request
 * id, never a retry loop.
 */
const UNAVAILABLE =
  /Network connection lost|storage operation exceeded|database is locked|\bSQLITE_BUSY\b|\bSQLITE_LOCKED\b|overloaded|Too many requests queued|reset because its code was updated|transient issue|timed? ?out|Internal error in D1|D1 DB (?:is )?(?:unavailable|storage)|object to be reset/i;

/** Errors that say the request itself was at fault even when they also mention D1. */
const NOT_AVAILABILITY = /constraint|SQLITE_MISMATCH|SQLITE_TOOBIG|SQLITE_RANGE|syntax error|no such (?:table|column)|datatype mismatch/i;

function messages(e: unknown): string[] {
  const out: string[] = [];
  for (let err: unknown = e, depth = 0; err !== undefined && err !== null && depth < 4; depth++) {
    out.push(err instanceof Error ? err.message : String(err));
    err = err instanceof Error ? (err as { cause?: unknown }).cause : undefined;
  }
  return out;
}

export function isDatabaseFailure(e: unknown): boolean {
  const all = messages(e);
  if (all.some((m) => NOT_AVAILABILITY.test(m))) return false;
  return all.some((m) => UNAVAILABLE.test(m));
}
