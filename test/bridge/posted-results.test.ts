/** --follow's memory of what it posted: a row read again unchanged is not posted again. */
import { describe, expect, it } from "vitest";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import { PostedResults } from "../../bridge/running/posted-results";
import { Rounds } from "../../bridge/running/round";
import type { ResultRow } from "../../bridge/database/rows";
import { type FakeOptions, KNOWN, fakePipeline, only, row } from "./pipeline-fakes";

async function* each(rows: ResultRow[]): AsyncGenerator<ResultRow> {
  yield* rows;
}

/** A --follow round over the fakes, remembering as the run does (answers.ts): a pass once written, an error report once answered. */
function followRound(o: FakeOptions = {}) {
  const { pipeline, world } = fakePipeline({ passesPerRequest: 50, ...o });
  const posted = new PostedResults();
  const logWritten = world.parts.written!;
  world.parts.written = (request, written) => {
    logWritten(request, written);
    posted.rememberPasses(request.passes, request.rows);
  };
  const rounds = new Rounds({
    pipeline,
    api: {
      rescale: async () => ({}) as never,
      postErrors: async (body) => {
        world.log.push(`errors ${body.results.map((r) => r.id).join(",")}`);
        return {} as never;
      },
    },
    registrar: { register: async () => undefined },
    knownVersions: KNOWN,
    rescaleEvery: 0,
    follow: true,
    posted,
    skipped: () => undefined,
  });
  return { rounds, pipeline, world, posted };
}

/** The row as BOINC's transitioner or file deleter leaves it: only mod_time moved (row() derives sent and received times from it). */
const touched = (r: ResultRow, modTime: number, changed: Partial<ResultRow> = {}): ResultRow => ({ ...r, mod_time: modTime, ...changed });

describe("the results posted", () => {
  it("knows a row again whose mod_time moved, not one whose validate_state, outcome or a value changed", () => {
    const posted = new PostedResults();
    expect(posted.has(row(1, 100))).toBe(false);
    const first = row(1, 100);
    posted.remember(first);
    // The transitioner's and file deleter's touch, and the write-back's granted_credit: the same body.
    expect(posted.has(touched(first, 160, { granted_credit: 12.5 }))).toBe(true);
    expect(posted.has(touched(first, 160, { validate_state: VALIDATE_STATE.invalid }))).toBe(false);
    expect(posted.has(touched(first, 160, { outcome: OUTCOME.clientError }))).toBe(false);
    expect(posted.has(touched(first, 160, { elapsed_time: 1001 }))).toBe(false);
    expect(posted.has(touched(first, 160, { target_nresults: 2 }))).toBe(false);
    expect(posted.has({ ...first, id: 2 })).toBe(false);
  });

  it("keeps at most its bound, forgetting the one remembered longest ago", () => {
    const posted = new PostedResults(null, 3);
    for (const id of [1, 2, 3]) posted.remember(row(id, 100));
    // Remembered again (changed and posted again): now the newest.
    const invalid = touched(row(1, 100), 110, { validate_state: VALIDATE_STATE.invalid });
    posted.remember(invalid);
    posted.remember(row(4, 100));
    expect(posted.size).toBe(3);
    expect([invalid, row(2, 100), row(3, 100), row(4, 100)].map((r) => posted.has(touched(r, 200)))).toEqual([true, false, true, true]);
  });

  it("with the write-back, leaves out the valid results it does not know that the write-back's table holds, and only those", async () => {
    const asked: number[][] = [];
    const posted = new PostedResults(async (ids) => {
      asked.push(ids);
      return new Set(ids.filter((id) => id === 1 || id === 3));
    });
    const known = row(3, 90);
    posted.remember(known);
    const invalid = row(2, 100, { validate_state: VALIDATE_STATE.invalid });
    // 1: written by an earlier process; 2: invalid (never in the table); 3: remembered with other content; 4: new.
    const fresh = await posted.unposted([
      [row(1, 100), invalid],
      [touched(known, 101, { elapsed_time: 5 }), row(4, 101)],
    ]);
    expect(asked).toEqual([[1, 4]]);
    expect(fresh.map((rows) => rows.map((r) => r.id))).toEqual([[2], [3, 4]]);
    // Remembered now: read again, it is not looked up again.
    expect(posted.has(touched(row(1, 100), 130))).toBe(true);
    expect(await posted.unposted([[touched(row(1, 100), 130)]])).toEqual([[]]);
    expect(asked).toHaveLength(1);
  });

  it("in a round: posts again only the changed row, and moves the cursor past the rows it did not post", async () => {
    const { rounds, world, pipeline } = followRound();
    const error = row(3, 50, { outcome: OUTCOME.clientError, validate_state: VALIDATE_STATE.init });
    const [one, two] = [row(1, 50), row(2, 50)];
    await rounds.run(60, each([one, two, error]));
    expect(only(world.log, "post", "errors")).toEqual(["post 60", "errors 3"]);
    world.log.length = 0;
    // The transitioner touched all three; row 2 was also found invalid.
    const again = [
      touched(one, 70),
      touched(two, 70, { validate_state: VALIDATE_STATE.invalid }),
      touched(error, 70),
      row(4, 71),
      touched(one, 72),
    ];
    await rounds.run(80, each(again));
    // Row 2 (second 70) and the new row 4 (second 71).
    expect(only(world.log, "post", "errors")).toEqual(["post 80-80"]);
    expect(pipeline.saved.cursor).toEqual({ mod_time: 72, id: 1 });
    // 1 (twice) and the error 3 were not posted again.
    expect(rounds.counts).toMatchObject({ rows: 8, unchanged: 3 });
  });

  it("does not remember a request whose write failed: after the abandon, its rows are posted again", async () => {
    const { rounds, world, pipeline, posted } = followRound({ failWrite: "60" });
    await expect(rounds.run(60, each([row(1, 50)]))).rejects.toThrow("write 60 failed");
    await pipeline.abandon();
    expect(posted.size).toBe(0);
    world.log.length = 0;
    await rounds.run(70, each([touched(row(1, 50), 55)]));
    expect(only(world.log, "post")).toEqual(["post 70"]);
    expect(posted.size).toBe(1);
  });
});
