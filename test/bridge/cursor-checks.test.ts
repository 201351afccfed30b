/**
 * Where a run starts, without a database (bridge/running/cursor-checks.ts): --rewind moves the cursor back
 * and never forward, a cursor ahead of the database's clock is refused, --write-back goes back to
 * where its own writing stopped (or to the switch point), --follow goes back when the clock was set
 * back between polls; and times without a zone are refused (bridge/command-line/cli-options.ts).
 */
import { describe, expect, it } from "vitest";
import { parseTime } from "../../bridge/command-line/cli-options";
import { clockSetBack, refuseCursorAhead, rewind, writeBackStart } from "../../bridge/running/cursor-checks";
import { BridgeError } from "../../bridge/shared/errors";
import { type BridgeState, freshState } from "../../bridge/running/state";

const at = (mod_time: number, id: number, wb?: { mod_time: number; id: number }): BridgeState => ({
  ...freshState("http://service", "demo", 0),
  cursor: { mod_time, id },
  ...(wb ? { write_back_cursor: wb } : {}),
});

describe("where a run starts", () => {
  it("--rewind moves the cursor and the write-back's back to TIME, never forward, and never past the database's clock", () => {
    const s = at(2000, 40, { mod_time: 1800, id: 9 });
    expect(rewind(s, 1500, 3000)).toMatch(/^--rewind: the cursor goes back from 2000 .*, result 40 to 1500 /);
    expect(s.cursor).toEqual({ mod_time: 1500, id: 0 });
    expect(s.write_back_cursor).toEqual({ mod_time: 1500, id: 0 });
    const later = at(1000, 4);
    expect(rewind(later, 1500, 3000)).toMatch(/it stays there/);
    expect(later.cursor).toEqual({ mod_time: 1000, id: 4 });
    expect(() => rewind(at(1000, 4), 3001, 3000)).toThrow(/--rewind 3001 .* is later than the database's clock \(3000 /);
  });

  it("refuses a cursor ahead of the database's clock, and says how to go back", () => {
    expect(() => refuseCursorAhead(at(3000, 1), 3000, "s.json")).not.toThrow();
    let e: unknown = null;
    try {
      refuseCursorAhead(at(3600, 1), 3000, "s.json");
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(BridgeError);
    expect((e as Error).message).toMatch(
      /^the cursor in s\.json \(3600 .*\) is ahead of the database's clock \(3000 .*Run once with --rewind TIME/s,
    );
  });

  it("--write-back goes back to the switch point, or to where its own writing stopped, when a run without it moved the cursor on", () => {
    // No write-back run saved this state: T.
    expect(writeBackStart(at(5000, 3), 4000)).toMatchObject({ to: { mod_time: 4000, id: 0 } });
    expect(writeBackStart(at(4000, 0), 4000)).toBeNull();
    expect(writeBackStart(at(3000, 3), 4000)).toBeNull();
    // A write-back run saved up to (4500, 7); a read-only run went on to (5000, 3).
    const moved = writeBackStart(at(5000, 3, { mod_time: 4500, id: 7 }), 4000);
    expect(moved?.to).toEqual({ mod_time: 4500, id: 7 });
    expect(moved?.why).toMatch(/a run without --write-back moved the cursor/);
    expect(writeBackStart(at(4500, 7, { mod_time: 4500, id: 7 }), 4000)).toBeNull();
  });

  it("--follow goes back to the clock of the last poll, less the time since, when the clock is behind the cursor", () => {
    expect(clockSetBack({ mod_time: 1000, id: 5 }, 1000, 2)).toBeNull();
    // Set back an hour between two polls 2 s apart: every row since is stamped at 996 or later.
    expect(clockSetBack({ mod_time: 4598, id: 5 }, 1000, 2.5)).toEqual({ mod_time: 996, id: 0 });
  });

  it("takes a time with a zone or as Unix seconds, and refuses one without a zone", () => {
    expect(parseTime("1700000000")).toBe(1_700_000_000);
    expect(parseTime("2023-11-14T22:13:20Z")).toBe(1_700_000_000);
    expect(parseTime("2023-11-14T23:13:20+01:00", "--switch-time")).toBe(1_700_000_000);
    expect(() => parseTime("2023-11-14T22:13:20", "--switch-time")).toThrow(
      /^--switch-time: '2023-11-14T22:13:20' has no time zone, and times are by the database's clock: give the time with Z for UTC/,
    );
    expect(() => parseTime("2023-11-14")).toThrow(/has no time zone/);
  });
});
