/**
 * One policy for a write that loses a race on a UNIQUE key: a concurrent request inserted the
 * same rows first, so the write's D1 batch rolled back. It is run again from a fresh read
 * (where the other request's rows are replays or conflicts), up to CONFLICT_ATTEMPTS times
 * with a short random pause that keeps colliding requests from colliding again in step. A
 * race still lost after that is a 409 `concurrent_write` with Retry-After: nothing was
 * written, and the client's retry will see the other request's rows. Never a 500.
 */
import { isPrimaryKeyConflict } from "../db/batch";
import { ApiError } from "./errors";

export const CONFLICT_ATTEMPTS = 5;
const PAUSE_MS = 20;

/** Runs `write` (read, decide, write one batch); again while its batch loses a UNIQUE race. */
export async function retryOnConflict<T>(write: () => Promise<T>, what: string): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (e) {
      if (!isPrimaryKeyConflict(e)) throw e;
      if (attempt >= CONFLICT_ATTEMPTS) {
        throw new ApiError(
          409,
          "concurrent_write",
          `${what} were being written by another request at the same time; nothing was written; retry`,
          undefined,
          { "Retry-After": "1" },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * PAUSE_MS * attempt));
    }
  }
}
