/**
 * The follow loop alone, with scripted rounds and a recorded sleep: one round for a backfill;
 * with --follow a round per poll, backing off (5 s doubling to 5 min) on transient failures and
 * reconnecting, stopping on anything else, on the signal, or on an interrupted round.
 */
import { describe, expect, it } from "vitest";
import { BridgeError } from "../../bridge/shared/errors";
import { BACKOFF_MS, type FollowLoopParts, followLoop, sleepUnlessAborted } from "../../bridge/running/follow-loop";

type Step = "ok" | "away" | "refused";

const away = () => new BridgeError("the database went away", { transient: true });
const refused = () => new BridgeError("a validator still grants credit");

/** The rounds in a log. */
const polls = (log: string[]) => log.filter((l) => l === "poll" || l === "poll first");

/** A loop whose polls follow `script` (then stop the run), with every call logged. */
function scripted(script: Step[], o: Partial<FollowLoopParts> & { follow?: boolean; reconnectFails?: () => Error } = {}) {
  const log: string[] = [];
  const sleeps: number[] = [];
  const backoffs: number[] = [];
  const stop = new AbortController();
  let polls = 0;
  const parts: FollowLoopParts = {
    pollSeconds: o.follow === false ? null : 2,
    signal: stop.signal,
    beforePoll: async () => void log.push("beforePoll"),
    poll: async (first) => {
      const step = script[polls++];
      log.push(`poll${first ? " first" : ""}`);
      if (polls >= script.length) stop.abort();
      if (step === "away") throw away();
      if (step === "refused") throw refused();
    },
    afterPoll: async () => void log.push("afterPoll"),
    polled: () => void log.push("polled"),
    interrupted: () => false,
    recover: async () => void log.push("recover"),
    reconnect: async () => {
      log.push("reconnect");
      if (o.reconnectFails) throw o.reconnectFails();
    },
    backingOff: (_e, ms) => backoffs.push(ms),
    sleep: async (ms) => void sleeps.push(ms),
    ...o,
  };
  return { run: () => followLoop(parts), log, sleeps, backoffs };
}

describe("the follow loop", () => {
  it("runs a backfill's one round, with its maintenance after it, and no sleep", async () => {
    const { run, log, sleeps } = scripted(["ok", "ok"], { follow: false });
    await run();
    expect(log).toEqual(["beforePoll", "poll first", "afterPoll", "polled"]);
    expect(sleeps).toEqual([]);
  });

  it("polls every pollSeconds, backs off 5 s doubling on transient failures, reconnects, and polls on time again after a success", async () => {
    const { run, log, sleeps, backoffs } = scripted(["ok", "away", "away", "ok", "away", "ok", "ok"]);
    await run();
    // After a success the poll interval (2 s); after the 1st, 2nd failure in a row 5 s, 10 s; the 7th poll stopped the run.
    expect(sleeps).toEqual([2000, 5000, 10000, 2000, 5000, 2000]);
    expect(backoffs).toEqual([5000, 10000, 5000]);
    expect(log.filter((l) => l === "recover")).toHaveLength(3);
    expect(log.filter((l) => l === "reconnect")).toHaveLength(3);
    expect(log.filter((l) => l === "polled")).toHaveLength(4);
    // Each round: the check before it, the maintenance after it; a failed one is recovered, then reconnected.
    expect(log.slice(0, 9)).toEqual([
      "beforePoll",
      "poll first",
      "afterPoll",
      "polled",
      "beforePoll",
      "poll",
      "recover",
      "reconnect",
      "beforePoll",
    ]);
  });

  it("caps the back-off at 5 minutes", async () => {
    const { run, backoffs } = scripted(["away", "away", "away", "away", "away", "away", "away", "away", "ok"]);
    await run();
    // 5 s × 2^k: 5, 10, 20, 40, 80, 160, then 320 capped at 300.
    expect(backoffs).toEqual([5, 10, 20, 40, 80, 160, 300, 300].map((s) => s * 1000));
    expect(BACKOFF_MS).toEqual({ first: 5_000, max: 300_000 });
  });

  it("stops on a failure that is not transient, after the round's work ended", async () => {
    const { run, log } = scripted(["ok", "refused", "ok"]);
    await expect(run()).rejects.toThrow("a validator still grants credit");
    expect(log.slice(4)).toEqual(["beforePoll", "poll", "recover"]);
  });

  it("stops a backfill on a transient failure too (the next run resumes)", async () => {
    const { run, log } = scripted(["away"], { follow: false });
    await expect(run()).rejects.toThrow("the database went away");
    expect(log).toEqual(["beforePoll", "poll first", "recover"]);
  });

  it("goes on when reconnecting fails transiently, and stops when it fails otherwise", async () => {
    const transient = scripted(["away", "ok"], { reconnectFails: away });
    await transient.run();
    expect(polls(transient.log)).toHaveLength(2);
    const fatal = scripted(["away", "ok"], { reconnectFails: refused });
    await expect(fatal.run()).rejects.toThrow("a validator still grants credit");
    expect(polls(fatal.log)).toHaveLength(1);
  });

  it("treats a failed maintenance or check like a failed round", async () => {
    let checks = 0;
    const { run, backoffs, log } = scripted(["ok", "ok", "ok"], {
      beforePoll: async () => {
        if (++checks === 2) throw away();
      },
    });
    await run();
    expect(backoffs).toEqual([5000]);
    // The second check failed: its round did not run.
    expect(polls(log)).toHaveLength(3);
    expect(checks).toBe(4);
  });

  it("stops after an interrupted round without sleeping", async () => {
    const { run, sleeps, log } = scripted(["ok", "ok"], { interrupted: () => true });
    await run();
    expect(sleeps).toEqual([]);
    expect(polls(log)).toHaveLength(1);
  });

  it("sleeps until the signal aborts, not longer", async () => {
    const stop = new AbortController();
    const started = Date.now();
    setTimeout(() => stop.abort(), 20);
    await sleepUnlessAborted(60_000, stop.signal);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(stop.signal.aborted).toBe(true);
  });
});
