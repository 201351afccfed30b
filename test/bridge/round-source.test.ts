/**
 * The run's source alone (bridge/running/round-source.ts): each round reads after the state's
 * cursor, with each scan's keys handed to the write-back's check; the first round waits for the
 * write-back's opening and its start point before it reads; --follow reads the window before the
 * cursor again and leaves out what it posted there unchanged.
 */
import { describe, expect, it } from "vitest";
import type { ResultKey } from "../../bridge/database/boinc-db";
import type { Cursor, ResultRow } from "../../bridge/database/rows";
import { RoundSource, type SourceWriteBack } from "../../bridge/running/round-source";
import { FOLLOW_REREAD_SECONDS } from "../../bridge/running/run-options";
import { freshState } from "../../bridge/running/state";
import { deferred, idle, row } from "./pipeline-fakes";

/** A database of `rows`: each read logged with where it starts and ends, each scan's keys checked first. */
function fakeDb(rows: ResultRow[], log: string[]) {
  return {
    async *rowsAfter(cursor: Cursor, until: number, options: { check?: (keys: ResultKey[]) => Promise<void>; keysPerScan?: number } = {}) {
      log.push(`read after ${cursor.mod_time}:${cursor.id} before ${until} (keys per scan ${options.keysPerScan})`);
      const found = rows.filter(
        (r) => (r.mod_time > cursor.mod_time || (r.mod_time === cursor.mod_time && r.id > cursor.id)) && r.mod_time < until,
      );
      await options.check?.(
        found.map((r) => ({ id: r.id, granted: (r.granted_credit ?? 0) > 0, received_time: r.received_time })) as ResultKey[],
      );
      yield* found;
    },
    writtenBack: async (ids: number[]) => new Set(ids),
    serverTime: async () => 1234,
  };
}

function fakeWriteBack(log: string[], on = false): SourceWriteBack & { open(): void } {
  const opened = deferred<void>();
  return {
    on,
    opened: opened.promise,
    open: () => opened.resolve(),
    checkScan: async (keys) => void log.push(`check ${keys.map((k) => k.id).join(",")}`),
    startPoint: (state) => {
      log.push("start point");
      state.cursor = { mod_time: 100, id: 0 };
    },
  };
}

const ids = async (rows: AsyncIterable<ResultRow>) => {
  const out: number[] = [];
  for await (const r of rows) out.push(r.id);
  return out;
};

describe("the run's source", () => {
  it("reads after the cursor, before `until`, each scan checked before its rows are handed on", async () => {
    const log: string[] = [];
    const state = freshState("http://service", "demo", 0);
    state.cursor = { mod_time: 101, id: 101 };
    const source = new RoundSource(fakeDb([row(101, 101), row(102, 102), row(103, 103)], log), state, fakeWriteBack(log), {
      keysPerScan: 50,
    });
    expect(await ids(source.rows(103))).toEqual([102]);
    expect(log).toEqual(["read after 101:101 before 103 (keys per scan 50)", "check 102"]);
    expect(await source.serverTime()).toBe(1234);
    expect(source.rereads).toBeNull();
    expect(source.posted).toBeNull();
  });

  it("the first round reads only once the write-back is open, from the point it starts at", async () => {
    const log: string[] = [];
    const state = freshState("http://service", "demo", 0);
    state.cursor = { mod_time: 102, id: 102 };
    const writeBack = fakeWriteBack(log, true);
    const source = new RoundSource(fakeDb([row(101, 101), row(102, 102)], log), state, writeBack, {});
    const first = source.first(110);
    await idle();
    expect(log).toEqual([]);
    writeBack.open();
    expect(await ids(await first)).toEqual([101, 102]);
    expect(log).toEqual(["start point", "read after 100:0 before 110 (keys per scan undefined)", "check 101,102"]);
  });

  it("a failed opening fails the first round where it is awaited, not before", async () => {
    const state = freshState("http://service", "demo", 0);
    const writeBack = { ...fakeWriteBack([]), opened: Promise.reject(new Error("no switch point")) };
    const first = new RoundSource(fakeDb([], []), state, writeBack, {}).first(110);
    await idle();
    await expect(first).rejects.toThrow("no switch point");
  });

  it("--follow reads the window before the cursor again, less what it posted there as it is", async () => {
    const log: string[] = [];
    const state = freshState("http://service", "demo", 0);
    state.cursor = { mod_time: 200, id: 200 };
    const late = row(195, 195);
    const answered = row(196, 196);
    const postedAsItIs = row(197, 197);
    const changed = row(198, 198, { cpu_time: 950 });
    const rows = [late, answered, postedAsItIs, changed, row(201, 201)];
    const source = new RoundSource(fakeDb(rows, log), state, fakeWriteBack(log), { follow: { pollSeconds: 2 } });
    source.rereads!.add(answered);
    source.posted!.remember(postedAsItIs);
    source.posted!.remember(row(198, 198));
    expect(await ids(source.rows(210))).toEqual([195, 198, 201]);
    expect(log[0]).toBe(`read after ${200 - FOLLOW_REREAD_SECONDS}:0 before 210 (keys per scan undefined)`);
    // After the poll the window forgets what is before it now.
    state.cursor = { mod_time: 300, id: 300 };
    source.polled();
    expect(source.rereads!.size).toBe(0);
  });
});
