import { describe, expect, it } from "vitest";
import { errorEffect } from "../../src/credit/error-outcome";

describe("error outcomes (docs/spec/credit.md#errors)", () => {
  it("error resets consecutive_valid of an existing host_app_version", () => {
    expect(errorEffect("error", true)).toEqual({ createIfMissing: false, samples: {}, resetConsecutiveValid: true });
  });

  it("error does nothing when the host_app_version does not exist", () => {
    expect(errorEffect("error", false)).toBeNull();
  });

  it("timeout creates the host_app_version, adds delay_bound as a turnaround sample and resets", () => {
    const expected = { createIfMissing: true, samples: { turnaround: 86400 }, resetConsecutiveValid: true };
    expect(errorEffect("timeout", false, 86400)).toEqual(expected);
    expect(errorEffect("timeout", true, 86400)).toEqual(expected);
  });

  it("timeout without delay_bound adds no sample but still resets", () => {
    expect(errorEffect("timeout", true)).toEqual({ createIfMissing: true, samples: {}, resetConsecutiveValid: true });
  });

  it("aborted (exit status 202) changes nothing", () => {
    expect(errorEffect("aborted", true)).toBeNull();
    expect(errorEffect("aborted", false, 86400)).toBeNull();
  });
});
