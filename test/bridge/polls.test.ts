/**
 * The follow loop's turns alone (bridge/running/polls.ts), over stand-ins of the chain's links:
 * the first round reads the rows opened at the start, a later one the rows up to the database's
 * clock less the hold; a clock set back moves the cursor back (told, saved) before the round; the
 * trickle messages after the round's writes; the upkeep, the unpaid count and the minute between
 * polls; a back-off told.
 */
import { describe, expect, it } from "vitest";
import type { BridgeEvent } from "../../bridge/telling/event-log";
import { Teller } from "../../bridge/telling/event-log";
import type { ResultRow } from "../../bridge/database/rows";
import { DatabaseClock } from "../../bridge/running/database-clock";
import { Polls, type PollParts, type RunChain } from "../../bridge/running/polls";
import { FOLLOW_HOLD_SECONDS, UPKEEP_BATCHES } from "../../bridge/running/run-options";
import { freshState } from "../../bridge/running/state";
import { BridgeStatus } from "../../bridge/telling/status";

async function* none(): AsyncGenerator<ResultRow> {}

function world(o: { follow?: boolean; serverTimes?: number[]; cursor?: number; trickles?: boolean } = {}) {
  const log: string[] = [];
  const events: BridgeEvent[] = [];
  const state = freshState("http://service", "demo", 0);
  state.cursor = { mod_time: o.cursor ?? 100, id: 1 };
  const times = [...(o.serverTimes ?? [])];
  const next = { ...state };
  const firstRows = none();
  const chain: RunChain = {
    state,
    source: {
      rows: (until) => {
        log.push(`rows before ${until}`);
        return none();
      },
      serverTime: async () => times.shift()!,
      polled: () => void log.push("source polled"),
    },
    rounds: {
      counts: {
        rows: 0,
        seconds: 0,
        skipped: 0,
        unchanged: 0,
        no_credit: 0,
        rescales: 0,
        errors: 0,
        error_outcomes: 0,
        interrupted: false,
      },
      run: async (seenAt, rows) => void log.push(`round at ${seenAt}${rows === firstRows ? " (the first rows)" : ""}`),
    },
    pipeline: {
      next,
      afterWrites: async (work) => {
        log.push("after writes");
        await work();
      },
      abandon: async () => void log.push("abandon"),
      commit: () => void log.push(`commit ${next.cursor.mod_time}`),
      drain: async () => void log.push("drain"),
    },
    writeBack: { on: true, upkeep: async (n) => void log.push(`upkeep ${n}`) },
    trickles: o.trickles ? { round: async () => void log.push("trickles") } : null,
  };
  const clock = { ms: 1_000 };
  const status = new BridgeStatus("demo", () => clock.ms);
  const parts: PollParts = {
    seenAt: 1000,
    firstRows: Promise.resolve(firstRows),
    clock: new DatabaseClock(),
    options: { follow: o.follow ? { pollSeconds: 2 } : null },
    connections: { beforePoll: async () => void log.push("before poll"), reconnect: async () => void log.push("reconnect") },
    meter: null,
    unpaid: null,
    status,
    teller: new Teller((e) => events.push(e)),
  };
  return { polls: new Polls(chain, parts), log, events, state, next, status, clock };
}

describe("the follow loop's turns", () => {
  it("a backfill: one round of the rows opened at the start, at the start's clock, then its trickle messages after the writes", async () => {
    const { polls, log } = world({ trickles: true });
    expect(polls.pollSeconds).toBeNull();
    expect(polls.afterPoll).toBeUndefined();
    await polls.poll(true);
    expect(log).toEqual(["round at 1000 (the first rows)", "after writes", "trickles"]);
  });

  it("--follow: a later round reads up to the database's clock less the hold; the upkeep after each poll", async () => {
    const { polls, log } = world({ follow: true, serverTimes: [1010] });
    expect(polls.pollSeconds).toBe(2);
    await polls.poll(true);
    await polls.poll(false);
    await polls.afterPoll!();
    expect(log).toEqual([
      "round at 1000 (the first rows)",
      `rows before ${1010 - FOLLOW_HOLD_SECONDS + 1}`,
      "round at 1010",
      "after writes",
      `upkeep ${UPKEEP_BATCHES.follow}`,
    ]);
  });

  it("--follow: the database's clock behind the cursor goes back, told and saved before the round", async () => {
    const { polls, log, events, state, next } = world({ follow: true, serverTimes: [50], cursor: 100 });
    await polls.poll(true);
    await polls.poll(false);
    expect(state.cursor.mod_time).toBeLessThan(50);
    expect(next.cursor).toEqual(state.cursor);
    expect(log.slice(1)).toEqual([
      `commit ${state.cursor.mod_time}`,
      "drain",
      `rows before ${50 - FOLLOW_HOLD_SECONDS + 1}`,
      "round at 50",
    ]);
    expect(events.map((e) => [e.event, e.fields])).toEqual([
      ["clock_set_back", { clock: 50, cursor_mod_time: 100, to_mod_time: state.cursor.mod_time }],
    ]);
  });

  it("between polls the source forgets its window and the status notes the poll; a back-off is told and counted as unavailable", () => {
    const { polls, log, events, status, clock } = world({ follow: true });
    clock.ms = 7_000;
    polls.polled();
    expect(log).toEqual(["source polled"]);
    expect(status.snapshot().lastPoll).toBe(7);
    polls.backingOff(new Error("the database is away"), 5000);
    expect(events.map((e) => [e.level, e.event, e.msg])).toEqual([
      ["warn", "backoff", "follow: the database is away; trying again in 5 s"],
    ]);
    expect(status.snapshot().errors).toEqual({ unavailable: 1, fatal: 0 });
  });
});
