import type { HostAppVersionSamples } from "./pfc";

/** What became of a result that did not succeed (docs/spec/credit.md#errors). */
export const ERROR_OUTCOMES = ["error", "timeout", "aborted"] as const;
export type ErrorOutcome = (typeof ERROR_OUTCOMES)[number];

export interface ErrorEffect {
  /** Create the host_app_version (zeroed) if it is missing. */
  readonly createIfMissing: boolean;
  readonly samples: HostAppVersionSamples;
  readonly resetConsecutiveValid: boolean;
}

/**
 * The scheduler's got_bad_result (error), the transitioner's result_timed_out (timeout, whose
 * delay_bound is a turnaround sample), and an abort by the project (exit 202: nothing).
 * Returns null when nothing changes.
 */
export function errorEffect(outcome: ErrorOutcome, hostAppVersionExists: boolean, delayBound?: number): ErrorEffect | null {
  switch (outcome) {
    case "error":
      return hostAppVersionExists ? { createIfMissing: false, samples: {}, resetConsecutiveValid: true } : null;
    case "timeout":
      return {
        createIfMissing: true,
        samples: delayBound === undefined ? {} : { turnaround: delayBound },
        resetConsecutiveValid: true,
      };
    case "aborted":
      return null;
  }
}
