/** A failure the bridge explains to the admin in one message (exit status 2), never with a stack. */
export class BridgeError extends Error {
  override name = "BridgeError";
  /** The service or the database was unavailable: a --follow run backs off and tries again instead of stopping. */
  readonly transient: boolean;

  constructor(message: string, options: { transient?: boolean } = {}) {
    super(message);
    this.transient = options.transient ?? false;
  }
}

/** mysql2's codes (and Node's) for a database that is not there or went away. */
const UNAVAILABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "PROTOCOL_CONNECTION_LOST",
  "ER_SERVER_SHUTDOWN",
  "ER_CON_COUNT_ERROR",
]);

/** Whether `e` says the service or the database is unavailable for now (not that something is wrong). */
export function isTransient(e: unknown): boolean {
  if (e instanceof BridgeError) return e.transient;
  const err = e as { code?: string; fatal?: boolean };
  return UNAVAILABLE.has(err.code ?? "") || err.fatal === true;
}

export function isUnavailableCode(code: string | undefined): boolean {
  return UNAVAILABLE.has(code ?? "");
}
