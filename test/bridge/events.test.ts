/** The pure part of the bridge: how rows of one second become calls, and when a backfill rescales. */
import { describe, expect, it } from "vitest";
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import { MAX_RESULTS_PER_PASS, callsForSecond, rescaleMarkBefore } from "../../bridge/service/second-calls";
import { MAX_RESULTS_PER_PASS as API_MAX_RESULTS_PER_PASS } from "../../src/routes/passes/passes.schemas";
import type { ResultRow } from "../../bridge/database/rows";

const T = 1_700_000_123;

function row(id: number, workunitId: number, extra: Partial<ResultRow> = {}): ResultRow {
  return {
    id,
    mod_time: T,
    workunit_id: workunitId,
    app: "alpha",
    rsc_fpops_est: 1e13,
    rsc_fpops_bound: 1e14,
    target_nresults: 2,
    delay_bound: 86400,
    host_id: 7,
    user_id: 3,
    team_id: 0,
    app_version_id: 1,
    elapsed_time: 1000,
    cpu_time: 900,
    flops_estimate: 1e10,
    sent_time: T - 5000,
    received_time: T - 10,
    validate_state: VALIDATE_STATE.valid,
    outcome: OUTCOME.success,
    exit_status: 0,
    runtime_outlier: 0,
    granted_credit: 12.5,
    ...extra,
  };
}

const known = new Map([
  [1, "alpha"],
  [2, "beta"],
]);

describe("callsForSecond", () => {
  it("groups a second's results by workunit in workunit-id order, whatever order the rows came in", () => {
    const calls = callsForSecond(T, [row(30, 9), row(10, 2), row(31, 9), row(11, 2, { validate_state: VALIDATE_STATE.invalid })], known);
    expect(calls.passes).toHaveLength(1);
    expect(calls.passes[0]!.now).toBe(T);
    expect(calls.passes[0]!.workunits.map((w) => [w.id, w.results.map((r) => [r.id, r.validate_state])])).toEqual([
      [
        2,
        [
          [10, "valid"],
          [11, "invalid"],
        ],
      ],
      [
        9,
        [
          [30, "valid"],
          [31, "valid"],
        ],
      ],
    ]);
    expect(calls.errors).toEqual([]);
  });

  it("splits a second past the API's 1000 workunits into passes with the same now, in order", () => {
    const rows = Array.from({ length: 2001 }, (_, i) => row(i + 1, i + 1));
    const calls = callsForSecond(T, rows, known);
    expect(calls.passes.map((p) => p.workunits.length)).toEqual([1000, 1000, 1]);
    expect(calls.passes.every((p) => p.now === T)).toBe(true);
    expect(calls.passes[1]!.workunits[0]!.id).toBe(1001);
  });

  it("splits a second past the API's 5000 results into passes, a workunit's results never apart", () => {
    expect(MAX_RESULTS_PER_PASS).toBe(API_MAX_RESULTS_PER_PASS);
    // 12 workunits of 1000 results: five fill a pass, the sixth starts the next.
    const rows = Array.from({ length: 12_000 }, (_, i) => row(i + 1, 1 + Math.floor(i / 1000)));
    const calls = callsForSecond(T, rows, known);
    expect(calls.passes.map((p) => p.workunits.map((w) => w.results.length))).toEqual([
      Array(5).fill(1000),
      Array(5).fill(1000),
      [1000, 1000],
    ]);
    expect(calls.passes.map((p) => p.workunits[0]!.id)).toEqual([1, 6, 11]);
  });

  it("turns client errors, timeouts and project aborts into error reports", () => {
    const calls = callsForSecond(
      T,
      [
        row(1, 1, { outcome: OUTCOME.clientError, validate_state: VALIDATE_STATE.init }),
        row(2, 2, { outcome: OUTCOME.noReply, validate_state: VALIDATE_STATE.init, delay_bound: 3600 }),
        row(3, 3, { outcome: OUTCOME.clientError, exit_status: -221, validate_state: VALIDATE_STATE.init }),
        row(4, 4, { outcome: OUTCOME.clientError, app_version_id: -3, validate_state: VALIDATE_STATE.init }),
      ],
      known,
    );
    expect(calls.passes).toEqual([]);
    expect(calls.errors[0]!.results).toEqual([
      { id: 1, host_id: 7, app_version_id: 1, app: "alpha", outcome: "error" },
      { id: 2, host_id: 7, app_version_id: 1, app: "alpha", outcome: "timeout", delay_bound: 3600 },
      { id: 3, host_id: 7, app_version_id: 1, app: "alpha", outcome: "aborted" },
      { id: 4, host_id: 7, app_version_id: -3, app: "alpha", outcome: "error" },
    ]);
  });

  it("skips, with the reason, what the API would refuse: NULLs, unknown versions, another app's version, sent after received", () => {
    const calls = callsForSecond(
      T,
      [
        row(1, 1, { flops_estimate: null, app: null }),
        row(2, 2, { app_version_id: 99 }),
        row(3, 3, { app_version_id: -1 }),
        row(4, 4, { sent_time: T, received_time: T - 1 }),
        row(5, 5, { rsc_fpops_bound: 1e12 }),
        row(6, 6, { elapsed_time: 0, cpu_time: 0, sent_time: 0, received_time: 0 }),
        row(7, 7, { app_version_id: 2 }),
      ],
      known,
    );
    expect(calls.skipped).toEqual([
      { id: 1, reason: "NULL app, flops_estimate" },
      { id: 2, reason: "unknown app version 99" },
      { id: 3, reason: "app_version_id -1 is neither an app version nor an anonymous platform (-2 … -6)" },
      { id: 4, reason: `sent_time ${T} is after received_time ${T - 1}` },
      { id: 5, reason: "workunit 5: rsc_fpops_est 10000000000000, rsc_fpops_bound 1000000000000" },
      // The service would refuse the whole pass (422 app_mismatch) and every later run with it.
      { id: 7, reason: "app version 2 is of app 'beta', not of workunit 7's app 'alpha'" },
    ]);
    // Zero times are BOINC's to judge (the API substitutes as BOINC does), so they are posted.
    expect(calls.passes[0]!.workunits.map((w) => w.id)).toEqual([6]);
  });

  it("never posts results still waiting for validation (validate_state INIT) or inconclusive", () => {
    const calls = callsForSecond(
      T,
      [row(1, 1, { validate_state: VALIDATE_STATE.init }), row(2, 2, { validate_state: VALIDATE_STATE.inconclusive })],
      known,
    );
    expect(calls).toMatchObject({ passes: [], errors: [], skipped: [] });
  });
});

describe("rescaleMarkBefore", () => {
  it("rescales at the latest 10-minute mark crossed since the previous event, once", () => {
    // 1_700_259_570 → 1_700_259_907 crosses 1_700_259_600 (= 2_833_766 × 600).
    expect(rescaleMarkBefore(1_700_259_570, 1_700_259_907, 600)).toBe(1_700_259_600);
    // Two marks crossed (…4200 and …4800): one rescale, at the later.
    expect(rescaleMarkBefore(1_700_284_191, 1_700_285_016, 600)).toBe(1_700_284_800);
    expect(rescaleMarkBefore(1_700_259_601, 1_700_260_199, 600)).toBeNull();
    // An event exactly at a mark runs that mark's rescale first.
    expect(rescaleMarkBefore(1_700_259_599, 1_700_259_600, 600)).toBe(1_700_259_600);
  });

  it("never before the first event, and never when turned off", () => {
    expect(rescaleMarkBefore(null, 1_700_259_907, 600)).toBeNull();
    expect(rescaleMarkBefore(1_700_259_570, 1_700_269_907, 0)).toBeNull();
  });
});
