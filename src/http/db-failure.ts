/**
 * D1 failures that are not our own conflicts (a lost connection, an overloaded or reset
 * database, a statement that failed part-way through a batch): the batch rolled back, so
 * the request changed nothing and may be retried. The error handler answers 503.
 */
const D1_FAILURE = /\bD1_[A-Z_]+\b|\bSQLITE_[A-Z]+\b|Network connection lost|storage operation exceeded|database is locked/i;

export function isDatabaseFailure(e: unknown): boolean {
  for (let err: unknown = e, depth = 0; err !== undefined && err !== null && depth < 4; depth++) {
    const message = err instanceof Error ? err.message : String(err);
    if (D1_FAILURE.test(message)) return true;
    err = err instanceof Error ? (err as { cause?: unknown }).cause : undefined;
  }
  return false;
}
