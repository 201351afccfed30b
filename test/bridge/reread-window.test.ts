/** --follow's re-read window: rows before the cursor are posted only once. */
import { describe, expect, it } from "vitest";
import { RereadWindow } from "../../bridge/running/reread-window";
import { row } from "./pipeline-fakes";

async function* each<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

describe("the re-read window", () => {
  it("reads from 10 s before the cursor, passes the rows after it and the ones before it not posted, and forgets what falls behind", async () => {
    const rereads = new RereadWindow(10);
    expect(rereads.from({ mod_time: 105, id: 9 })).toEqual({ mod_time: 95, id: 0 });
    expect(rereads.from({ mod_time: 5, id: 9 })).toEqual({ mod_time: 0, id: 0 });
    rereads.add(row(1, 98));
    rereads.add(row(9, 101));
    const cursor = { mod_time: 100, id: 7 };
    const read = [row(1, 98), row(2, 99), row(7, 100), row(8, 100), row(9, 101)];
    const passed: number[] = [];
    for await (const r of rereads.unposted(each(read), cursor)) passed.push(r.id);
    // 1 was posted; 2 and 7 (at the cursor) were not: a late commit; 8 and 9 are after the cursor.
    expect(passed).toEqual([2, 7, 8, 9]);
    // Behind 110 - 10 = 100: row 1 (98) goes, row 9 (101) stays.
    rereads.prune({ mod_time: 110, id: 0 });
    expect(rereads.size).toBe(1);
  });
});
