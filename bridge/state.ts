/**
 * The bridge's only memory between runs: the cursor (the last result row whose second the
 * service has fully answered), the time of that last event and the last rescale mark posted.
 * Written atomically (a temp file renamed over it) after every answered second, so a run killed
 * at any moment resumes at the first second not yet answered.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Cursor } from "./rows";
import { BridgeError } from "./errors";
import { normalizeServiceUrl } from "./service-url";

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
}

export function freshState(url: string, project: string, since: number): BridgeState {
  // (since, 0): every row of the second `since` and later.
  return { version: 1, url, project, cursor: { mod_time: since, id: 0 }, last_event_time: null, last_rescale_mark: null };
}

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
  } catch {
    throw new BridgeError(`the state file ${file} is not JSON; move it away to start over`);
  }
  if (state.version !== 1 || typeof state.cursor?.mod_time !== "number" || typeof state.cursor?.id !== "number") {
    throw new BridgeError(`the state file ${file} is not a bridge state file`);
  }
  if (normalizeServiceUrl(state.url) !== url || state.project !== project) {
    throw new BridgeError(`the state file ${file} belongs to project '${state.project}' at ${state.url}, not '${project}' at ${url}`);
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
