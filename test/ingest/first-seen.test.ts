/**
 * docs/spec/credit.md#first-seen, docs/spec/credit.md#attribution: a host, user or team is
 * first seen by the first pass that
 * names it in ANY result, an undecided (`inconclusive`) one included. Its RAC clock starts at
 * that pass's `now`, and the attribution (host → owner, user → team) moves with every result.
 */
import { describe, expect, it } from "vitest";
import { type ResultBody, result, setupProject, workunit } from "../support/api-helpers";

const DAY = 86_400;
const HALF_LIFE = 7 * DAY; // CREDIT_HALF_LIFE, sched/sched_util_basic.h

const T1 = 10_000; // pass 1: the result is posted undecided
const T2 = T1 + 3_600; // pass 2: does not name the account
const T3 = T1 + DAY; // pass 3: the result comes back valid
const CREDIT = 700; // credit_mode fixed: the workunit's canonical_credit

/** One result of host 70 (user 71, team 72); the workunit's credit is fixed at CREDIT. */
function accountResult(validate_state: ResultBody["validate_state"], over: Partial<ResultBody> = {}) {
  return result(701, { host_id: 70, user_id: 71, team_id: 72, validate_state, ...over });
}
function accountWorkunit(r: ResultBody) {
  return workunit(7, [r], { target_nresults: 1, canonical_credit: CREDIT });
}

describe("accounts first seen through an undecided result", () => {
  it("start their RAC clock at that pass and are credited two passes later with the decay written out", async () => {
    const { api } = await setupProject("firstseen");
    await api.ok("PUT", "/apps/a", { host_scale_check: false, credit_mode: "fixed" });

    await api.ok("POST", "/passes", { now: T1, workunits: [accountWorkunit(accountResult("inconclusive"))] });
    // The undecided result already created host, user and team, with expavg_time = T1 and no credit.
    for (const kind of ["hosts/70", "users/71", "teams/72"]) {
      const e = await api.ok("GET", `/${kind}`);
      expect([e.total_credit, e.expavg_credit, e.expavg_time]).toEqual([0, 0, T1]);
    }
    expect((await api.ok("GET", "/hosts/70")).user_id).toBe(71);
    expect((await api.ok("GET", "/users/71")).team_id).toBe(72);

    // A pass that names other accounts only leaves this one's clock alone.
    await api.ok("POST", "/passes", {
      now: T2,
      workunits: [workunit(8, [result(801, { host_id: 10, user_id: 10 })], { target_nresults: 1, canonical_credit: 5 })],
    });

    const decided = await api.ok("POST", "/passes", { now: T3, workunits: [accountWorkunit(accountResult("valid"))] });
    expect(decided.workunits[0]!.results[0]!.granted_credit).toBe(CREDIT);

    // update_average (lib/util.cpp) at T3 with avg = 0, avg_time = T1:
    //   diff = T3 - T1 = 86400 s = 1 day; weight = exp(-diff·ln2/half_life) = 2^(-1/7) ≈ 0.9057236643
    //   avg = 0·weight + (1 - weight)·CREDIT/1 day ≈ 0.0942763357·700 ≈ 65.99344
    // (Had the clock started at the grant, diff = 0 and avg = CREDIT·ln2/7 ≈ 69.31472.)
    const weight = Math.exp((-(T3 - T1) * Math.LN2) / HALF_LIFE);
    const expected = (1 - weight) * (CREDIT / ((T3 - T1) / DAY));
    expect(expected).toBeCloseTo(65.99344, 4);
    for (const kind of ["hosts/70", "users/71", "teams/72"]) {
      const e = await api.ok("GET", `/${kind}`);
      expect(e.total_credit).toBe(CREDIT);
      expect(e.expavg_time).toBe(T3);
      expect(Math.abs(e.expavg_credit - expected) / expected).toBeLessThan(1e-12);
    }
  });

  it("move the host's owner and the user's team as decided results do (latest pass wins)", async () => {
    const { api } = await setupProject("firstseen-move");
    await api.ok("POST", "/passes", {
      now: T1,
      workunits: [workunit(9, [result(901, { host_id: 80, user_id: 81, team_id: 82 })])],
    });
    // The host changes hands and the user changes team; only an undecided result says so.
    await api.ok("POST", "/passes", {
      now: T2,
      workunits: [
        workunit(10, [result(1001, { host_id: 80, user_id: 83, team_id: 0, validate_state: "inconclusive" })]),
        workunit(11, [result(1101, { host_id: 84, user_id: 81, team_id: 85, validate_state: "inconclusive" })]),
      ],
    });
    expect((await api.ok("GET", "/hosts/80")).user_id).toBe(83);
    expect((await api.ok("GET", "/users/81")).team_id).toBe(85);
    const team = await api.ok("GET", "/teams/85");
    expect([team.total_credit, team.expavg_time]).toEqual([0, T2]);
  });
});
