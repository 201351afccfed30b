import { EXIT, EXIT_OF, type FailureKind } from "./exit-codes";

/**
 * A failure the bridge explains to the admin in one message, never with a stack. Its `kind`
 * says what the admin should do, and so the exit status (exit-codes.ts): a refusal needs a
 * human (2), an unavailable service or database a restart (75), a lock another run holds (76).
 */
export class BridgeError extends Error {
  override name = "BridgeError";
  /** The service or the database was unavailable: a --follow run backs off and tries again instead of stopping. */
  readonly transient: boolean;
  /** Default: "unavailable" when transient, else "refusal". A 5xx of the service is "unavailable" but not transient (--follow stops; systemd restarts it). */
  readonly kind: FailureKind;

  constructor(message: string, options: { transient?: boolean; kind?: FailureKind } = {}) {
    super(message);
    this.transient = options.transient ?? false;
    this.kind = options.kind ?? (this.transient ? "unavailable" : "refusal");
  }

  get exitStatus(): number {
    return EXIT_OF[this.kind];
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

/**
 * The exit status of a run that threw `e`: a BridgeError's own; the database's own error for a
 * connection gone (mysql2's, not wrapped) 75; anything else is a bug, 1.
 */
export function exitStatusOf(e: unknown): number {
  if (e instanceof BridgeError) return e.exitStatus;
  return isTransient(e) ? EXIT.unavailable : EXIT.bug;
}
