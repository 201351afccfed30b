/**
 * One round alone: rows second by second become holder registrations, rescales, passes and
 * error reports in BOINC's order, over the request pipeline and in-memory fakes of the service
 * (pipeline-fakes.ts).
 */
import { describe, expect, it } from "vitest";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import type { HolderIds } from "../../bridge/service/holders";
import { Rounds, SKIPS_LOGGED } from "../../bridge/running/round";
import type { ResultRow } from "../../bridge/database/rows";
import { type FakeOptions, KNOWN, fakePipeline, only, row } from "./pipeline-fakes";

async function* each(rows: ResultRow[]): AsyncGenerator<ResultRow> {
  yield* rows;
}

function round(o: FakeOptions & { rescaleEvery?: number; follow?: boolean; maxSeconds?: number; signal?: AbortSignal } = {}) {
  const { pipeline, world } = fakePipeline({ passesPerRequest: 50, ...o });
  const skipped: string[] = [];
  const rounds = new Rounds({
    pipeline,
    api: o.dryRun
      ? null
      : {
          rescale: async (now) => {
            world.log.push(`rescale ${now}`);
            return { now } as never;
          },
          postErrors: async (body) => {
            world.log.push(`errors ${body.now}: ${body.results.map((r) => `${r.id} ${r.outcome}`).join(", ")}`);
            return {} as never;
          },
        },
    registrar: {
      register: async (ids: HolderIds) => {
        world.log.push(`register hosts ${[...ids.hosts]} users ${[...ids.users]} teams ${[...ids.teams]}`);
      },
    },
    knownVersions: KNOWN,
    rescaleEvery: o.rescaleEvery ?? 0,
    follow: o.follow ?? false,
    maxSeconds: o.maxSeconds,
    signal: o.signal,
    skipped: (s) => skipped.push(`result ${s.id} skipped: ${s.reason}`),
  });
  return { rounds, pipeline, world, skipped };
}

describe("a round", () => {
  it("rescales at a crossed mark between two seconds, once the passes before it were answered, as BOINC's history ran", async () => {
    const { rounds, world } = round({ rescaleEvery: 600 });
    // 1198 and 1199 travel together; 1205 crosses the mark 1200 (floor(1205 / 600) * 600).
    await rounds.run(0, each([row(1, 1198), row(2, 1199), row(3, 1205)]));
    expect(only(world.log, "post", "rescale")).toEqual(["post 1198-1199", "rescale 1200", "post 1205"]);
    expect(world.log.indexOf("answer 1198-1199")).toBeLessThan(world.log.indexOf("rescale 1200"));
    // Saved: the first request, the rescale (same cursor, with its mark), the last request.
    expect(only(world.log, "save")).toEqual(["save 1199", "save 1199", "save 1205"]);
    expect(world.saved).toMatchObject({ cursor: { mod_time: 1205, id: 3 }, last_event_time: 1205, last_rescale_mark: 1200 });
    expect(rounds.counts).toMatchObject({ rows: 3, seconds: 3, rescales: 1 });
  });

  it("posts a second's error reports after its pass was answered, and counts them", async () => {
    const { rounds, world } = round();
    const failed = row(2, 50, { outcome: OUTCOME.clientError, validate_state: VALIDATE_STATE.init });
    const late = row(3, 50, { outcome: OUTCOME.noReply, validate_state: VALIDATE_STATE.init, delay_bound: 3600 });
    await rounds.run(0, each([row(1, 50), failed, late, row(4, 51)]));
    expect(only(world.log, "post", "answer", "errors")).toEqual([
      "post 50",
      "answer 50",
      "errors 50: 2 error, 3 timeout",
      "post 51",
      "answer 51",
    ]);
    expect(rounds.counts).toMatchObject({ errors: 1, error_outcomes: 2, rows: 4, seconds: 2 });
  });

  it("registers the hosts, users and teams of a batch of seconds before any of its passes leaves", async () => {
    const { rounds, world } = round();
    await rounds.run(0, each([row(1, 10), row(2, 11, { host_id: 8, user_id: 4, team_id: 0 })]));
    expect(only(world.log, "register", "post")).toEqual(["register hosts 7,8 users 3,4 teams 5", "post 10-11"]);
  });

  it("with --follow grants at the poll's clock, not at the rows' mod_time", async () => {
    const { rounds, world } = round({ follow: true });
    await rounds.run(5000, each([row(1, 100), row(2, 101)]));
    expect(only(world.log, "post", "write")).toEqual(["post 5000-5000", "write 5000"]);
    // The cursor still follows the rows.
    expect(world.saved.cursor).toEqual({ mod_time: 101, id: 2 });
  });

  it("moves the saved cursor past a second with nothing to post", async () => {
    const { rounds, world, skipped } = round();
    await rounds.run(0, each([row(1, 10, { host_id: 0 }), row(2, 11)]));
    expect(skipped).toEqual(["result 1 skipped: host id 0"]);
    expect(only(world.log, "post", "save")).toEqual(["save 10", "post 11", "save 11"]);
    expect(rounds.counts.skipped).toBe(1);
  });

  it(`names the first ${SKIPS_LOGGED} skipped results and counts the rest`, async () => {
    const { rounds, skipped } = round();
    await rounds.run(0, each(Array.from({ length: SKIPS_LOGGED + 5 }, (_, i) => row(i + 1, 10, { host_id: 0 }))));
    expect(skipped).toHaveLength(SKIPS_LOGGED);
    expect(skipped[0]).toBe("result 1 skipped: host id 0");
    expect(rounds.counts.skipped).toBe(SKIPS_LOGGED + 5);
  });

  it("stops after maxSeconds, counted over all rounds, and before the next second once the signal aborts", async () => {
    const { rounds, world } = round({ maxSeconds: 2 });
    await rounds.run(0, each([row(1, 10), row(2, 11), row(3, 12)]));
    await rounds.run(0, each([row(4, 13)]));
    expect(only(world.log, "post")).toEqual(["post 10-11"]);
    expect(rounds.counts).toMatchObject({ seconds: 2, interrupted: false });

    const stop = new AbortController();
    const stopped = round({ signal: stop.signal });
    stop.abort();
    await stopped.rounds.run(0, each([row(1, 10)]));
    expect(only(stopped.world.log, "post", "save")).toEqual([]);
    expect(stopped.rounds.counts).toMatchObject({ seconds: 0, interrupted: true });
  });

  it("in a dry run posts no rescale and no error report, and counts them", async () => {
    const { rounds, world } = round({ dryRun: true, rescaleEvery: 600 });
    await rounds.run(0, each([row(1, 1199), row(2, 1201, { outcome: OUTCOME.clientError, validate_state: VALIDATE_STATE.init })]));
    expect(only(world.log, "post", "rescale", "errors")).toEqual([]);
    expect(rounds.counts).toMatchObject({ rescales: 1, errors: 1, error_outcomes: 1 });
  });
});
