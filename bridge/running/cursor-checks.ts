/**
 * Where a run starts reading, checked against what the cursor cannot know by itself
 * (docs/bridge.md, "Where a run starts"): the switch point and how far the write-back wrote, the
 * database's clock, and an admin's --rewind. Every result between the cursor and the place it
 * goes back to is posted again, which is safe: the service answers a result it has as replayed,
 * with the same credit, and the write-back writes only results not in its table. Pure.
 */
import { BridgeError } from "../shared/errors";
import { type Cursor, after } from "../database/rows";
import type { BridgeState } from "./state";

export const whenText = (t: number) => `${t} (${new Date(t * 1000).toISOString()})`;
const cursorText = (c: Cursor) => `${whenText(c.mod_time)}, result ${c.id}`;

/** --rewind TIME: the cursor (and the write-back's) back to TIME, never forward; what to tell. */
export function rewind(state: BridgeState, time: number, dbNow: number): string {
  if (time > dbNow) {
    throw new BridgeError(
      `--rewind ${whenText(time)} is later than the database's clock (${whenText(dbNow)}): give a time by the database's clock (SELECT UNIX_TIMESTAMP();)`,
    );
  }
  const to: Cursor = { mod_time: time, id: 0 };
  const from = state.cursor;
  if (state.write_back_cursor && after(state.write_back_cursor, to)) state.write_back_cursor = to;
  if (!after(from, to)) return `--rewind: the cursor is at ${cursorText(from)}, not after ${whenText(time)}: it stays there`;
  state.cursor = to;
  return `--rewind: the cursor goes back from ${cursorText(from)} to ${whenText(time)}; the results validated since are posted again (the service answers them as replayed, and the write-back writes only the ones it has not written)`;
}

/** A saved cursor ahead of the database's clock: rows stamped from now on would sort before it and never be read. */
export function refuseCursorAhead(state: BridgeState, dbNow: number, stateFile: string): void {
  if (state.cursor.mod_time <= dbNow) return;
  throw new BridgeError(
    `the cursor in ${stateFile} (${cursorText(state.cursor)}) is ahead of the database's clock (${whenText(dbNow)}): ` +
      "the clock ran ahead and was set back, so every result validated from now on would sort before the cursor and never be posted. " +
      "Nothing was posted. Run once with --rewind TIME, TIME by the database's clock at or before the moment it was set back " +
      "(when unsure, earlier: re-posting is safe), then as before.",
  );
}

/**
 * --write-back's start: where its own writing stopped (the state's write_back_cursor), or the
 * switch point T for a state no write-back run has saved. A cursor past it was moved by a run
 * without --write-back, whose results were posted but never written: the run goes back there.
 */
export function writeBackStart(state: BridgeState, switchTime: number): { to: Cursor; why: string } | null {
  const stopped = state.write_back_cursor ?? null;
  const to = stopped ?? { mod_time: switchTime, id: 0 };
  if (!after(state.cursor, to)) return null;
  const why = stopped
    ? `a run without --write-back moved the cursor to ${cursorText(state.cursor)}, past where the write-back's writing stopped (${cursorText(to)})`
    : `the cursor (${cursorText(state.cursor)}) is past the switch point ${whenText(switchTime)} and no --write-back run has saved this state: a run without --write-back posted the results validated after the switch without writing them back`;
  return { to, why };
}

/**
 * --follow: the database's clock read at a poll is behind the cursor, so it was set back since
 * the last poll, at most `elapsedS` seconds ago: every row stamped since sorts at or after the
 * clock then. Where to go back to, or null when the clock is not behind.
 */
export function clockSetBack(cursor: Cursor, seen: number, elapsedS: number): Cursor | null {
  if (cursor.mod_time <= seen) return null;
  return { mod_time: Math.max(0, Math.floor(seen - elapsedS) - 1), id: 0 };
}
