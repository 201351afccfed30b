/** --follow's lag and its line a minute, on a clock the test moves. */
import { describe, expect, it } from "vitest";
import { FollowMeter, minuteText } from "../../bridge/running/follow-meter";

describe("the follow meter", () => {
  it("measures each result's lag from its mod_time to its answered request, and tells the minute once a minute", () => {
    let now = 0;
    const meter = new FollowMeter(() => now);
    // Lags 105 - 100 = 5 and 105 - 102 = 3; then 106 - 104 = 2.
    expect(meter.answered([{ mod_time: 100 }, { mod_time: 102 }], 105, 2)).toBe(5);
    expect(meter.answered([{ mod_time: 104 }], 106, 1)).toBe(2);
    expect(meter.lag.n).toBe(3);
    expect(meter.lag.mean_s).toBeCloseTo(10 / 3, 12);
    expect(meter.lag.max_s).toBe(5);
    now = 59_000;
    expect(meter.minuteSummary()).toBeNull();
    now = 61_000;
    const first = meter.minuteSummary()!;
    expect(first).toEqual({ seconds: 61, results: 3, written: 3, lagMax: 5 });
    expect(minuteText(first, true, { mod_time: 106, id: 3 })).toBe(
      "follow: 3 results posted, 3 written back in the last 61 s; lag behind the validator at most 5.0 s; cursor 1970-01-01T00:01:46.000Z",
    );
    // The next minute counts afresh; without --write-back it says nothing of writing.
    meter.answered([{ mod_time: 200 }], 201.5, 0);
    now = 100_000;
    expect(meter.minuteSummary()).toBeNull();
    now = 121_000;
    expect(minuteText(meter.minuteSummary()!, false, { mod_time: 200, id: 4 })).toBe(
      "follow: 1 results posted in the last 60 s; lag behind the validator at most 1.5 s; cursor 1970-01-01T00:03:20.000Z",
    );
    // A clock behind the row's stamp is no negative lag.
    meter.answered([{ mod_time: 300 }], 299, 0);
    expect(meter.lag.max_s).toBe(5);
    expect(meter.lag.n).toBe(5);
  });
});
