/**
 * --follow's clock (bridge/running/database-clock.ts): now by the database's clock, as the last
 * poll read it, and how long ago the poll before was by this machine's monotonic clock.
 */
import { describe, expect, it } from "vitest";
import { DatabaseClock } from "../../bridge/running/database-clock";

describe("the database's clock, as the polls read it", () => {
  it("keeps the offset of the last poll, and times the polls by the monotonic clock even when the wall clock jumps", () => {
    const wall = { ms: 1_000_000 };
    const monotonic = { ms: 0 };
    const clock = new DatabaseClock(
      () => wall.ms,
      () => monotonic.ms,
    );
    clock.polled(1003);
    expect(clock.now()).toBe(1003);
    wall.ms += 2_000;
    expect(clock.now()).toBe(1005);
    // The machine's clock set back an hour between polls; 2 s passed.
    wall.ms -= 3_600_000;
    monotonic.ms += 2_000;
    expect(clock.polled(1007)).toBe(2);
    expect(clock.now()).toBe(1007);
  });
});
