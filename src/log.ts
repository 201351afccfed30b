/**
 * The Worker's logs: one JSON object a line, with `event` and `level` first. Workers Logs indexes
 * the fields of a JSON line, Logpush carries the line as the event's message, and `wrangler dev`
 * prints it on one line (grep, jq). docs/operations.md#logs lists every event and field.
 *
 * Never put a token, an Authorization header, a secret or a request body in a field.
 */

export type LogLevel = "info" | "warn" | "error";

export interface LogFields {
  readonly event: string;
  readonly [field: string]: unknown;
}

/** Writes one line; the console method matches the level, so Workers Logs files it the same. */
export function log(level: LogLevel, fields: LogFields): void {
  const { event, ...rest } = fields;
  const line = JSON.stringify({ event, level, ...rest });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.info(line);
}

/** What a log line says of a thrown value: its message (its stack with `stack`). */
export function errorText(e: unknown, stack = false): string {
  if (e instanceof Error) return (stack ? e.stack : undefined) ?? e.message;
  return String(e);
}
