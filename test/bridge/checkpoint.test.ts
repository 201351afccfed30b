/**
 * The run's checkpoint alone (bridge/running/checkpoint.ts): what it saves, and when it saves
 * nothing; and the trickle messages' cursor kept in the state as saved and as it runs ahead.
 */
import { describe, expect, it } from "vitest";
import { Checkpoint } from "../../bridge/running/checkpoint";
import { type BridgeState, freshState } from "../../bridge/running/state";

function recorder() {
  const saves: { file: string; state: BridgeState }[] = [];
  const write = async (file: string, state: BridgeState) => void saves.push({ file, state: structuredClone(state) });
  return { saves, write };
}

describe("the run's checkpoint", () => {
  it("saves the state as it is; with --write-back it also says the writing reached the cursor", async () => {
    const state = freshState("http://service", "demo", 0);
    state.cursor = { mod_time: 50, id: 7 };
    const read = recorder();
    await new Checkpoint("/s.json", false, false, read.write).save(state);
    expect(read.saves).toEqual([{ file: "/s.json", state }]);
    const written = recorder();
    await new Checkpoint("/s.json", false, true, written.write).save(state);
    expect(written.saves[0]!.state.write_back_cursor).toEqual({ mod_time: 50, id: 7 });
    // The state itself is not changed: the write-back's cursor is the saved copy's.
    expect(state.write_back_cursor).toBeUndefined();
  });

  it("a dry run saves nothing", async () => {
    const dry = recorder();
    await new Checkpoint("/s.json", true, true, dry.write).save(freshState("http://service", "demo", 0));
    expect(dry.saves).toEqual([]);
  });

  it("the trickle cursor goes into the state as saved and as it runs ahead, then is saved", async () => {
    const saved = freshState("http://service", "demo", 0);
    const pipeline = { saved, next: { ...saved, cursor: { mod_time: 60, id: 9 } } };
    const r = recorder();
    await new Checkpoint("/s.json", false, false, r.write).saveTrickleCursor(pipeline, 42);
    expect(pipeline.saved.trickle_cursor).toBe(42);
    expect(pipeline.next.trickle_cursor).toBe(42);
    // What is saved is the state as saved, not the seconds still in flight.
    expect(r.saves.map((s) => [s.state.trickle_cursor, s.state.cursor.mod_time])).toEqual([[42, 0]]);
  });
});
