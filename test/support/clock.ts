/**
 * A fixed wall clock for tests whose day buckets depend on "today". The Worker runs in the
 * test's isolate, so faking `Date` fixes `serverNow()` too. Frozen by default; `advance` lets
 * it run on from `at` (for tests that run the cron twice: its fence wants a later time).
 */
import { afterAll, beforeAll, vi } from "vitest";

export function fixClock(at: number, advance = false): void {
  vi.useFakeTimers({ toFake: ["Date"], now: at * 1000, shouldAdvanceTime: advance });
}

export function restoreClock(): void {
  vi.useRealTimers();
}

/** Runs the enclosing describe's tests with the clock fixed at `at` (seconds). */
export function withFixedClock(at: number, advance = false): void {
  beforeAll(() => fixClock(at, advance));
  afterAll(restoreClock);
}

/** Noon UTC in mid-month: an ordinary day. */
export const ORDINARY_NOW = Date.UTC(2026, 5, 15, 12) / 1000;
/** 23:59:59 UTC on the last day of a month: one second from a new day, month and bucket. */
export const MONTH_END_NOW = Date.UTC(2026, 9, 31, 23, 59, 59) / 1000;
