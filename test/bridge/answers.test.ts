/**
 * The run's answers alone (bridge/running/answers.ts): an answered request's grants, bounded by
 * the apps' ceilings and counted (replayed, --compare); once written, --follow's lag, its window
 * and its memory of what it posted, and the `request` event.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BridgeEvent } from "../../bridge/telling/event-log";
import { Teller } from "../../bridge/telling/event-log";
import { CreditComparison } from "../../bridge/telling/compare";
import { Answers } from "../../bridge/running/answers";
import { DatabaseClock } from "../../bridge/running/database-clock";
import { FollowMeter } from "../../bridge/running/follow-meter";
import { PostedResults } from "../../bridge/running/posted-results";
import type { PassRequest } from "../../bridge/running/request-pipeline";
import { RereadWindow } from "../../bridge/running/reread-window";
import { AppCeilings } from "../../bridge/running/service-apps";
import { answerOf, passOf, row } from "./pipeline-fakes";

function requestOf(ids: number[], at: number): PassRequest {
  const rows = ids.map((id) => row(id, at));
  const { pass, granted } = passOf(rows, at);
  return { passes: [pass], boincGranted: granted, rows: new Map(rows.map((r) => [r.id, r])), results: rows.length };
}

function ceilings(max = 0) {
  const c = new AppCeilings();
  c.set([{ name: "alpha", max_granted_credit: max }], [{ id: 1, name: "alpha" }]);
  return c;
}

describe("the run's answers", () => {
  it("the grants of an answer, the replayed ones counted and each result compared with BOINC's", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cobblestone-answers-"));
    const comparison = new CreditComparison(join(dir, "compare.csv"));
    const events: BridgeEvent[] = [];
    const answers = new Answers({
      ceilings: ceilings(),
      comparison,
      source: { rereads: null, posted: null },
      meter: null,
      clock: new DatabaseClock(),
      writeBack: false,
      status: null,
      teller: new Teller((e) => events.push(e)),
    });
    const request = requestOf([1, 2], 100);
    const answer = answerOf(request.passes, 12);
    answer.passes[0]!.workunits[0]!.results[0]!.replayed = true;
    expect(answers.grants(request, answer).map((g) => [g.result_id, g.credit])).toEqual([
      [1, 12],
      [2, 12],
    ]);
    expect(answers.replayed).toBe(1);
    const summary = await comparison.close();
    expect(summary.results).toBe(2);
    expect((await readFile(join(dir, "compare.csv"), "utf8")).trim().split("\n")).toHaveLength(3);
    await rm(dir, { recursive: true, force: true });
  });

  it("an answer above the app's ceiling is refused, nothing of it granted", () => {
    const answers = new Answers({
      ceilings: ceilings(5),
      comparison: null,
      source: { rereads: null, posted: null },
      meter: null,
      clock: new DatabaseClock(),
      writeBack: true,
      status: null,
      teller: new Teller(() => undefined),
    });
    const request = requestOf([1], 100);
    expect(() => answers.grants(request, answerOf(request.passes, 12))).toThrow(/12/);
  });

  it("once written: --follow's lag by the database's clock, its window and its memory of the rows, and the request told", () => {
    const events: BridgeEvent[] = [];
    const clock = new DatabaseClock(
      () => 1_000_000,
      () => 0,
    );
    clock.polled(1103);
    const rereads = new RereadWindow(10);
    const posted = new PostedResults(null);
    const answers = new Answers({
      ceilings: ceilings(),
      comparison: null,
      source: { rereads, posted },
      meter: new FollowMeter(),
      clock,
      writeBack: true,
      status: null,
      teller: new Teller((e) => events.push(e)),
    });
    const request = requestOf([1, 2], 1100);
    answers.written(request, 2);
    expect(rereads.size).toBe(2);
    expect(posted.has(request.rows.get(1)!)).toBe(true);
    expect(events).toEqual([
      {
        level: "info",
        event: "request",
        msg: "request answered: 1 passes, 2 results, 2 written back",
        fields: { passes: 1, results: 2, written: 2, lag_max_s: 3 },
        jsonOnly: true,
      },
    ]);
  });
});
