/**
 * The write-back as a link of the run (bridge/running/write-back-stage.ts), over a stand-in of
 * its connection: without --write-back every step is a no-op; with it, each scan waits for the
 * opening, the run starts again at the switch point (told), grants are written through it.
 */
import { describe, expect, it } from "vitest";
import type { BridgeEvent } from "../../bridge/telling/event-log";
import { Teller } from "../../bridge/telling/event-log";
import { freshState } from "../../bridge/running/state";
import { WriteBackStage } from "../../bridge/running/write-back-stage";
import type { WriteBack } from "../../bridge/write-back/write-back";
import { deferred, idle } from "./pipeline-fakes";

const boinc = {
  writtenBack: async () => new Set<number>(),
  get reader(): never {
    throw new Error("not read in these tests");
  },
};

function link(switchTime: number) {
  const opening = deferred<void>();
  const log: string[] = [];
  let open: WriteBack | null = null;
  return {
    log,
    opening,
    link: {
      open: async () => {
        await opening.promise;
        open = { switchTime, upkeep: async (n: number) => void log.push(`upkeep ${n}`) } as unknown as WriteBack;
      },
      get writeBack() {
        return open;
      },
      write: async (grants: unknown[]) => {
        log.push(`write ${grants.length}`);
        return grants.length;
      },
    },
  };
}

describe("the write-back's link in the run", () => {
  it("without --write-back: off, nothing to write, nothing to refuse, the cursor where it is", async () => {
    const stage = new WriteBackStage(null, boinc, new Teller(() => undefined));
    expect(stage.on).toBe(false);
    expect(stage.write).toBeNull();
    expect(stage.writeTrickles).toBeNull();
    await stage.checkScan([{ id: 1, mod_time: 1, granted: true, received_time: 1 }]);
    const state = freshState("http://service", "demo", 500);
    stage.startPoint(state);
    expect(state.cursor).toEqual({ mod_time: 500, id: 0 });
    expect(await stage.countUnpaid()).toBeNull();
    await stage.upkeep(5);
  });

  it("with --write-back: a scan waits for the opening; the run goes back to the switch point, told; grants and upkeep go through it", async () => {
    const events: BridgeEvent[] = [];
    const fake = link(400);
    const stage = new WriteBackStage(fake.link, boinc, new Teller((e) => events.push(e)));
    expect(stage.on).toBe(true);
    let checked = false;
    const scan = stage.checkScan([]).then(() => (checked = true));
    await idle();
    expect(checked).toBe(false);
    fake.opening.resolve();
    await scan;
    const state = freshState("http://service", "demo", 500);
    stage.startPoint(state);
    expect(state.cursor).toEqual({ mod_time: 400, id: 0 });
    expect(events.map((e) => [e.event, e.fields])).toEqual([["cursor_rewound", { from_mod_time: 500, to_mod_time: 400 }]]);
    expect(await stage.write!([{}, {}] as never)).toBe(2);
    await stage.upkeep(50);
    expect(fake.log).toEqual(["write 2", "upkeep 50"]);
  });
});
