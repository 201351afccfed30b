/** --follow counts its unpaid results at most once a minute, one count at a time, and keeps the last count when one fails. */
import { describe, expect, it } from "vitest";
import { BridgeStatus } from "../../bridge/telling/status";
import { UnpaidWatch } from "../../bridge/running/unpaid-watch";

describe("the unpaid count's schedule", () => {
  it("counts at the first poll, then once a minute, never two at once; a failure keeps the last count and is told", async () => {
    let now = 1_000_000;
    const status = new BridgeStatus("p", () => now);
    const warnings: string[] = [];
    let counts = 0;
    let answer: () => Promise<number> = async () => 0;
    const watch = new UnpaidWatch(
      () => {
        counts++;
        return answer();
      },
      status,
      (msg) => warnings.push(msg),
      () => now,
    );
    watch.poll();
    await watch.settle();
    expect(counts).toBe(1);
    expect(status.snapshot().unpaid).toEqual({ count: 0, at: 1000 });

    // Polls 2 s apart for 58 s: no count; the poll a minute after the first counts.
    for (let t = 2_000; t < 60_000; t += 2_000) {
      now = 1_000_000 + t;
      watch.poll();
    }
    expect(counts).toBe(1);
    now = 1_060_000;
    let finish: (n: number) => void = () => undefined;
    answer = () => new Promise<number>((r) => (finish = r));
    watch.poll();
    expect(counts).toBe(2);
    // Still counting two minutes later (a slow scan): no second count beside it.
    now = 1_180_000;
    watch.poll();
    expect(counts).toBe(2);
    finish(3);
    await watch.settle();
    expect(status.snapshot().unpaid).toEqual({ count: 3, at: 1180 });
    expect(warnings).toEqual([
      "write-back: 3 valid results reported after the switch point are still unpaid 5 minutes after validation; `cobblestone-bridge audit` lists them",
    ]);

    now = 1_240_000;
    answer = () => Promise.reject(new Error("the database went away"));
    watch.poll();
    await watch.settle();
    expect(counts).toBe(3);
    expect(status.snapshot().unpaid).toEqual({ count: 3, at: 1180 });
    expect(warnings.at(-1)).toBe("write-back: cannot count the unpaid results: the database went away");
  });
});
