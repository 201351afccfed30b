/**
 * The request pipeline alone, over in-memory fakes of the service, the write-back and the state
 * file (pipeline-fakes.ts): requests leave one at a time and in order, each request's write
 * comes after its answer and before its save, the next request is posted while a write runs,
 * and a failure stops every save after it.
 */
import { describe, expect, it } from "vitest";
import { VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import { answerOf, fakePipeline, idle, only, passOf, row, second, wait } from "./pipeline-fakes";

describe("the request pipeline", () => {
  it("posts requests one at a time, in order, writes each back after its answer and saves its cursor after that", async () => {
    // 2 passes a request: seconds 1..6 go as 1-2, 3-4, 5-6; each request's cursor is its last second.
    const { pipeline, world } = fakePipeline({ passesPerRequest: 2, postMs: 5, writeMs: 30 });
    for (let t = 1; t <= 6; t++) await second(pipeline, t);
    await pipeline.drain();
    expect(only(world.log, "post", "answer")).toEqual(["post 1-2", "answer 1-2", "post 3-4", "answer 3-4", "post 5-6", "answer 5-6"]);
    // Writes and saves alternate, each save after the write of its own request (2 results each).
    expect(only(world.log, "write", "wrote", "written", "save")).toEqual([
      "write 1-2",
      "wrote 1-2",
      "written 1-2: 2",
      "save 2",
      "write 3-4",
      "wrote 3-4",
      "written 3-4: 2",
      "save 4",
      "write 5-6",
      "wrote 5-6",
      "written 5-6: 2",
      "save 6",
    ]);
    // Each write follows its answer; the next request left while the write before it ran (30 ms against 5 ms).
    const at = (line: string) => world.log.indexOf(line);
    expect(at("answer 1-2")).toBeLessThan(at("write 1-2"));
    expect(at("post 3-4")).toBeLessThan(at("wrote 1-2"));
    // But no further: at most one answered request waits for the write before it, so 5-6 leaves after 1-2 is saved.
    expect(at("post 5-6")).toBeGreaterThan(at("save 2"));
    expect(world.saved.cursor).toEqual({ mod_time: 6, id: 6 });
    expect(pipeline.counts).toEqual({ requests: 3, passes: 6, results: 6, answered: 6 });
    expect(pipeline.pending).toBe(0);
  });

  it("builds the next request while one is in flight, and sends it only once that one is answered", async () => {
    const { pipeline, world } = fakePipeline({ hold: true });
    await second(pipeline, 1);
    // The pass of second 2 does not fit a request of 1 pass: request 1 leaves.
    await second(pipeline, 2);
    const third = second(pipeline, 3);
    await idle();
    // Request 2 waits for request 1's answer; the rows of seconds 1 and 2 are pending.
    expect(world.log).toEqual(["post 1"]);
    expect(pipeline.pending).toBe(2);
    world.posts[0]!.resolve(answerOf([passOf([row(1, 1)], 1).pass]));
    await third;
    await wait(5);
    expect(only(world.log, "post", "answer", "save")).toEqual(["post 1", "answer 1", "post 2", "save 1"]);
    // Request 1 is through; 2 is in flight and 3 waits.
    expect(pipeline.pending).toBe(2);
    world.posts[1]!.resolve(answerOf([passOf([row(2, 2)], 2).pass]));
    const drained = pipeline.drain();
    await wait(5);
    world.posts[2]!.resolve(answerOf([passOf([row(3, 3)], 3).pass]));
    await drained;
    expect(only(world.log, "post", "answer")).toEqual(["post 1", "answer 1", "post 2", "answer 2", "post 3", "answer 3"]);
    expect(only(world.log, "save")).toEqual(["save 1", "save 2", "save 3"]);
  });

  it("stops every save after a failed write: the cursor stays at the last request written", async () => {
    const { pipeline, world } = fakePipeline({ passesPerRequest: 2, writeMs: 5, failWrite: "3-4" });
    for (let t = 1; t <= 6; t++) await second(pipeline, t);
    await expect(pipeline.drain()).rejects.toThrow("write 3-4 failed");
    expect(only(world.log, "write", "save")).toEqual(["write 1-2", "save 2", "write 3-4", "write 3-4 failed"]);
    // Request 5-6 may have been answered meanwhile; it is neither written nor saved.
    expect(world.saved.cursor).toEqual({ mod_time: 2, id: 2 });
  });

  it("stops at a failed post: nothing after it leaves, and after abandon() the next requests start from the saved cursor", async () => {
    const { pipeline, world } = fakePipeline({ passesPerRequest: 2, failPost: "3-4" });
    for (let t = 1; t <= 6; t++) await second(pipeline, t);
    await expect(pipeline.drain()).rejects.toThrow("post 3-4 failed");
    await pipeline.abandon();
    // abandon() waited for request 1-2's write and save, which ran on beside the failed post.
    expect(only(world.log, "post", "save")).toEqual(["post 1-2", "post 3-4", "save 2"]);
    // What was not answered is dropped: `next` is the saved state again.
    expect(pipeline.next).toEqual(world.saved);
    expect(pipeline.pending).toBe(0);
    expect(pipeline.empty).toBe(true);
    await second(pipeline, 7);
    await second(pipeline, 8);
    await pipeline.drain();
    expect(only(world.log, "post", "save").slice(3)).toEqual(["post 7-8", "save 8"]);
  });

  it("checks before every write-back write that has grants (the run guard's place); its failure stops the write and the saves after", async () => {
    const checks: string[] = [];
    let allowed = 2;
    const { pipeline, world } = fakePipeline({
      beforeWrite: async () => {
        world.log.push("check");
        checks.push("check");
        if (--allowed < 0) throw new Error("lost the lock");
      },
    });
    // Second 2's only result is invalid: no grant, no write, no check.
    await second(pipeline, 1);
    await second(pipeline, 2, [row(2, 2, { validate_state: VALIDATE_STATE.invalid })]);
    await second(pipeline, 3);
    await second(pipeline, 4);
    await expect(pipeline.drain()).rejects.toThrow("lost the lock");
    expect(only(world.log, "check", "write", "save")).toEqual([
      "check",
      "write 1",
      "save 1",
      "save 2",
      "check",
      "write 3",
      "save 3",
      "check",
    ]);
    expect(checks).toHaveLength(3);
    expect(world.saved.cursor.mod_time).toBe(3);
  });

  it("runs maintenance after the writes before it, never beside one", async () => {
    const { pipeline, world } = fakePipeline({ writeMs: 30 });
    await second(pipeline, 1);
    await second(pipeline, 2);
    await wait(5);
    // Request 1's write has started; the maintenance waits for it and its save.
    expect(world.log.at(-1)).toBe("write 1");
    await pipeline.afterWrites(async () => {
      world.log.push("maintain start");
      await wait(5);
      world.log.push("maintain end");
    });
    await pipeline.drain();
    expect(only(world.log, "write", "wrote", "save", "maintain")).toEqual([
      "write 1",
      "wrote 1",
      "save 1",
      "maintain start",
      "maintain end",
      "write 2",
      "wrote 2",
      "save 2",
    ]);
  });

  it("in a dry run posts and writes nothing, and moves the cursor in order", async () => {
    const { pipeline, world } = fakePipeline({ dryRun: true });
    for (let t = 1; t <= 3; t++) await second(pipeline, t);
    await pipeline.drain();
    expect(world.log).toEqual(["save 1", "save 2", "save 3"]);
    expect(pipeline.counts).toEqual({ requests: 3, passes: 3, results: 3, answered: 0 });
    expect(pipeline.pending).toBe(0);
  });

  it("without --write-back still tells each answered request, in order, before its save", async () => {
    const { pipeline, world } = fakePipeline({ writeBack: false, passesPerRequest: 2 });
    for (let t = 1; t <= 4; t++) await second(pipeline, t);
    await pipeline.drain();
    expect(only(world.log, "write", "written", "save")).toEqual(["written 1-2: 0", "save 2", "written 3-4: 0", "save 4"]);
  });

  it("keeps the answer's grants at the pass's own time, for the valid results only", async () => {
    const { pipeline, world } = fakePipeline({ passesPerRequest: 2 });
    const grants: { id: number; time: number; credit: number }[] = [];
    const write = world.parts.write!;
    world.parts.write = async (g) => {
      grants.push(...g.map((x) => ({ id: x.result_id, time: x.time, credit: x.credit })));
      return write(g);
    };
    await second(pipeline, 100, [row(1, 100), row(2, 100, { validate_state: VALIDATE_STATE.invalid })]);
    await second(pipeline, 101, [row(3, 101)]);
    await pipeline.drain();
    // answerOf grants 10 to each valid result.
    expect(grants).toEqual([
      { id: 1, time: 100, credit: 10 },
      { id: 3, time: 101, credit: 10 },
    ]);
  });
});
