/**
 * Reconciliation factors over a 30-day window: factor = min(1, granted / estimated).
 */
import { describe, expect, it } from "vitest";
import { confirmedFactor, linkKey, reconcileDay, reconcileWindow } from "../../src/credit/reconcile";

const U = "einstein.example/";
const DAY = 20_000;

describe("reconciliation", () => {
  it("the window of a day is the 30 days ending with it", () => {
    expect(reconcileWindow(DAY)).toEqual({ first: DAY - 29, last: DAY });
  });

  it("factor: 1 when granted covers the estimate, granted / estimated below it, 1 with nothing estimated", () => {
    expect(confirmedFactor(100, 100)).toBe(1);
    expect(confirmedFactor(100, 250)).toBe(1);
    expect(confirmedFactor(400, 100)).toBe(0.25);
    expect(confirmedFactor(0, 5)).toBe(1);
  });

  it("sums each linked (host, project) over the window; a host counts for its latest user; unlinked hosts are left out", () => {
    const estimated = [
      // Host 1 (user 7): 100 + 200 in the window, 1000 the day before it (ignored).
      { hostId: 1, url: U, day: DAY - 30, userId: 7, ec: 1000 },
      { hostId: 1, url: U, day: DAY - 29, userId: 7, ec: 100 },
      { hostId: 1, url: U, day: DAY, userId: 7, ec: 200 },
      // Host 2: user 8 earlier, user 7 on its latest day: it counts for user 7. 400 + 400.
      { hostId: 2, url: U, day: DAY - 5, userId: 8, ec: 400 },
      { hostId: 2, url: U, day: DAY - 1, userId: 7, ec: 400 },
      // Host 3 is not linked.
      { hostId: 3, url: U, day: DAY, userId: 7, ec: 999 },
    ];
    const granted = [
      { hostId: 1, url: U, day: DAY - 10, credit: 300 },
      { hostId: 2, url: U, day: DAY - 3, credit: 100 },
      { hostId: 2, url: U, day: DAY + 1, credit: 5000 }, // after the window
      { hostId: 3, url: U, day: DAY, credit: 1 },
    ];
    const linked = new Set([linkKey(1, U), linkKey(2, U)]);
    const r = reconcileDay(DAY, estimated, granted, linked);
    // Host 1: granted 300 / estimated 300 → 1. Host 2: 100 / 800 → 0.125.
    expect(r.hosts).toEqual([
      { hostId: 1, url: U, estimated: 300, granted: 300, factor: 1 },
      { hostId: 2, url: U, estimated: 800, granted: 100, factor: 0.125 },
    ]);
    // User 7 (hosts 1 and 2): 400 / 1100.
    expect(r.users).toEqual([{ userId: 7, url: U, estimated: 1100, granted: 400, factor: 400 / 1100 }]);
  });
});
