/**
 * The bridge's only memory between runs: the cursor (the last result row whose second the
 * service has fully answered), the time of that last event and the last rescale mark posted.
 * Written atomically (a temp file renamed over it) after every answered second, so a run killed
 * at any moment resumes at the first second not yet answered.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Cursor } from "../database/rows";
import { BridgeError } from "../shared/errors";
import { normalizeServiceUrl } from "../service/service-url";

export interface BridgeState {
  version: 1;
  /** Which project this state belongs to: a state file is never used for another. */
  url: string;
  project: string;
  cursor: Cursor;
  last_event_time: number | null;
  last_rescale_mark: number | null;
  /**
   * With --write-back: how far every answered request was also written back into BOINC's
   * database. A run without --write-back moves `cursor` but never this, so the next write-back
   * run knows where its own writing stopped (cursor-checks.ts). Absent in state files written
   * before it existed and by read-only runs only.
   */
  write_back_cursor?: Cursor | null;
  /** Trickle credit: the last msg_from_host.id posted (and with --write-back written); absent until the first (bridge/running/trickles.ts). */
  trickle_cursor?: number;
}

export function freshState(url: string, project: string, since: number): BridgeState {
  // (since, 0): every row of the second `since` and later.
  return { version: 1, url, project, cursor: { mod_time: since, id: 0 }, last_event_time: null, last_rescale_mark: null };
}

/**
 * What starting over costs, for a refusal that suggests moving the state file away: without its
 * cursor the next run posts the whole history again, and --since or --rewind say where to start.
 */
export const START_OVER =
  "moving it away starts over: the next run posts the whole history again, from the beginning or from --since TIME (safe: the service answers what it has as replayed; but as long as the first backfill). To post again from an earlier time, --rewind TIME moves a sound state file's cursor back instead";

/** The state file's URL in the one spelling (service-url.ts), or null when it is no service URL at all. */
function normalizedOrNull(url: unknown): string | null {
  if (typeof url !== "string") return null;
  try {
    return normalizeServiceUrl(url);
  } catch {
    return null;
  }
}

/**
 * The state saved in `file`, or null when there is none. `url` is the service's URL in its one
 * spelling (normalizeServiceUrl): a state file saved with `https://Host:443/` is the same
 * service's as one with `https://host`, and is refused only for another spelling of the host
 * (an address for a name, a proxy), with the two URLs and how to tell the bridge they are one.
 */
export async function loadState(file: string, url: string, project: string): Promise<BridgeState | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new BridgeError(`cannot read the state file ${file}: ${(e as Error).message}`);
  }
  let state: BridgeState;
  try {
    state = JSON.parse(text) as BridgeState;
  } catch (e) {
    throw new BridgeError(`the state file ${file} is not JSON (${(e as Error).message}); ${START_OVER}`);
  }
  if (state?.version !== 1 || typeof state.cursor?.mod_time !== "number" || typeof state.cursor?.id !== "number") {
    throw new BridgeError(`the state file ${file} is not a bridge state file; ${START_OVER}`);
  }
  if (state.project !== project) {
    throw new BridgeError(
      `the state file ${file} belongs to project '${state.project}' at ${state.url}, not '${project}': give each project a state file of its own (--state FILE; the default one is named after the project)`,
    );
  }
  if (normalizedOrNull(state.url) !== url) {
    throw new BridgeError(
      `the state file ${file} was saved for project '${project}' at ${state.url}, and this run was given --url ${url}. ` +
        `If that is the same service under another name (a host name for its address, a proxy in front of it), run with --url ${state.url} as before, ` +
        `or change the state file's "url" field to "${url}" (the cursor is kept either way). ` +
        `If it is another service, give this run a state file of its own (--state FILE): that service then gets the whole history, as a first backfill`,
    );
  }
  return state;
}

export async function saveState(file: string, state: BridgeState): Promise<void> {
  // Per process: even two runs that got past the lock could not rename each other's file away.
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(state, null, 2) + "\n");
  await rename(temp, file);
}
