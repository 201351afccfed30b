/**
 * An answer is reconciled with its request before anything of it is written (bridge/write-back/answer-check.ts):
 * each posted result exactly once, as posted, each valid one with a credit BOINC would grant; and
 * the ceilings that bound a credit (bridge/write-back/credit-bounds.ts) and where they come from (config.xml).
 */
import { describe, expect, it } from "vitest";
import { answerProblems, refuseUnreconciled, requestName } from "../../bridge/write-back/answer-check";
import type { PassBatchAnswer } from "../../bridge/write-back/answer-grants";
import {
  BOINC_DEFAULT_CAPS,
  CreditCeilings,
  DEFAULT_MAX_GRANTED_CREDIT,
  creditCeiling,
  creditProblem,
} from "../../bridge/write-back/credit-bounds";
import { validatorCapsFromConfig } from "../../bridge/database/db-source";
import { BridgeError } from "../../bridge/shared/errors";
import type { PassBody } from "../../bridge/service/second-calls";

/** Two passes: at 100, workunit 10 (app alpha) with results 1 (valid) and 2 (invalid); at 101, workunit 11 (beta) with result 3 (valid). */
const PASSES: PassBody[] = [
  {
    now: 100,
    workunits: [
      {
        id: 10,
        app: "alpha",
        rsc_fpops_est: 1e13,
        rsc_fpops_bound: 1e14,
        target_nresults: 2,
        results: [1, 2].map((id) => result(id, id === 1 ? "valid" : "invalid")),
      },
    ],
  },
  {
    now: 101,
    workunits: [{ id: 11, app: "beta", rsc_fpops_est: 1e13, rsc_fpops_bound: 1e14, target_nresults: 1, results: [result(3, "valid")] }],
  },
];

function result(id: number, validate_state: "valid" | "invalid"): PassBody["workunits"][number]["results"][number] {
  return {
    id,
    host_id: 7,
    user_id: 3,
    team_id: 5,
    app_version_id: 1,
    elapsed_time: 1000,
    cpu_time: 900,
    flops_estimate: 1e10,
    sent_time: 0,
    received_time: 50,
    validate_state,
    runtime_outlier: false,
  };
}

/** The answer a sound service gives: each result once, as posted; valid ones granted `credit`. */
function answer(credit: number): PassBatchAnswer {
  return {
    passes: PASSES.map((p) => ({
      now: p.now,
      workunits: p.workunits.map((w) => ({
        id: w.id,
        results: w.results.map((r) => ({
          id: r.id,
          validate_state: r.validate_state,
          granted_credit: r.validate_state === "valid" ? credit : 0,
          claimed_credit: null,
          pfc_mode: null,
          replayed: false,
        })),
      })),
    })),
  } as unknown as PassBatchAnswer;
}

const ceilings = new CreditCeilings(BOINC_DEFAULT_CAPS, [
  { name: "alpha", max_granted_credit: 0 },
  { name: "beta", max_granted_credit: 40 },
]);

describe("an answer reconciled with its request", () => {
  it("passes a sound answer, and names the request as the bridge's messages do", () => {
    expect(answerProblems(PASSES, answer(12.5), ceilings)).toEqual([]);
    expect(requestName(PASSES)).toBe("POST 2 passes at 100…101");
    expect(requestName(PASSES.slice(0, 1))).toBe("POST 1 pass at 100");
  });

  it("refuses a credit BOINC would never grant: negative, over the ceiling, not a number", () => {
    // beta's ceiling is the service's 40 (below BOINC's 7.3e7); alpha's is BOINC's (the service's 0 is no cap).
    expect(answerProblems(PASSES, answer(-1000), ceilings)).toEqual([
      "result 1 (app alpha): granted_credit -1000 is negative",
      "result 3 (app beta): granted_credit -1000 is negative",
    ]);
    expect(answerProblems(PASSES, answer(1e12), ceilings)).toEqual([
      `result 1 (app alpha): granted_credit 1000000000000 is more than the most BOINC grants for this app (${DEFAULT_MAX_GRANTED_CREDIT})`,
      "result 3 (app beta): granted_credit 1000000000000 is more than the most BOINC grants for this app (40)",
    ]);
    expect(answerProblems(PASSES, answer(41), ceilings)).toEqual([
      "result 3 (app beta): granted_credit 41 is more than the most BOINC grants for this app (40)",
    ]);
    const text = answer(1) as unknown as { passes: { workunits: { results: { granted_credit: unknown }[] }[] }[] };
    text.passes[1]!.workunits[0]!.results[0]!.granted_credit = "1";
    expect(answerProblems(PASSES, text, ceilings)).toEqual(['result 3 (app beta): granted_credit "1" is not a finite number']);
  });

  it("holds a fixed or post-assigned credit to the one BOINC grants, as posted: any other answer is refused, replayed or not", () => {
    // Workunit 10 of a fixed app with canonical_credit 12.5; workunit 11 of a post-assigned app whose valid result claims 7.25.
    const stated: PassBody[] = [
      { ...PASSES[0]!, workunits: [{ ...PASSES[0]!.workunits[0]!, canonical_credit: 12.5 }] },
      { ...PASSES[1]!, workunits: [{ ...PASSES[1]!.workunits[0]!, results: [{ ...result(3, "valid"), claimed_credit: 7.25 }] }] },
    ];
    const sound = answer(12.5);
    sound.passes[1]!.workunits[0]!.results[0]!.granted_credit = 7.25;
    expect(answerProblems(stated, sound, ceilings)).toEqual([]);
    // Both within every ceiling, neither BOINC's; the replayed flag changes nothing.
    const lying = answer(30);
    lying.passes[1]!.workunits[0]!.results[0]!.replayed = true;
    expect(answerProblems(stated, lying, ceilings)).toEqual([
      "result 1 (app alpha): granted_credit 30 is not the credit BOINC grants it, 12.5 (the workunit's canonical_credit as posted)",
      "result 3 (app beta): granted_credit 30 is not the credit BOINC grants it, 7.25 (the workunit's canonical_credit as posted)",
    ]);
    // A posted credit above the service's cap (beta: 40) is granted at the cap.
    const capped: PassBody[] = [stated[0]!, { ...PASSES[1]!, workunits: [{ ...PASSES[1]!.workunits[0]!, canonical_credit: 55 }] }];
    const atCap = answer(12.5);
    atCap.passes[1]!.workunits[0]!.results[0]!.granted_credit = 40;
    expect(answerProblems(capped, atCap, ceilings)).toEqual([]);
  });

  it("bounds a runtime app's credit by its workunit: no claim passes twice rsc_fpops_bound's credit", () => {
    // beta on --credit_from_runtime: workunit 11's bound 1e14 FLOPs, so at most 2 x 1e14 x 200 / 86400e9 = 462.96…,
    // far below the validator's cap.
    const runtime = new CreditCeilings(BOINC_DEFAULT_CAPS, [
      { name: "alpha", max_granted_credit: 0 },
      { name: "beta", max_granted_credit: 0, credit_mode: "runtime" },
    ]);
    const most = (2 * 1e14 * 200) / 86400e9;
    expect(runtime.ofWorkunit("beta", 1e14)).toBe(most);
    expect(runtime.ofWorkunit("alpha", 1e14)).toBe(DEFAULT_MAX_GRANTED_CREDIT);
    expect(answerProblems(PASSES, answer(462), runtime)).toEqual([]);
    expect(answerProblems(PASSES, answer(500), runtime)).toEqual([
      `result 3 (app beta): granted_credit 500 is more than the most BOINC grants for this app (${most})`,
    ]);
  });

  it("refuses results left out, answered twice, answered in another pass or not posted, or answered in another state", () => {
    const empty = answer(1);
    empty.passes[0]!.workunits = [];
    expect(answerProblems(PASSES, empty, ceilings)).toEqual(["results 1, 2 posted in the pass at 100 are missing from the answer"]);
    expect(answerProblems(PASSES, { passes: [] }, ceilings)).toEqual([
      "it answers 0 passes to the 2 posted",
      "results 1, 2 posted in the pass at 100 are missing from the answer",
      "result 3 posted in the pass at 101 is missing from the answer",
    ]);
    const extra = answer(1);
    extra.passes.push(extra.passes[1]!);
    expect(answerProblems(PASSES, extra, ceilings)).toEqual(["it answers 3 passes to the 2 posted"]);
    const twice = answer(1);
    twice.passes[0]!.workunits[0]!.results.push(twice.passes[0]!.workunits[0]!.results[0]!);
    expect(answerProblems(PASSES, twice, ceilings)).toEqual(["result 1 (app alpha) is answered more than once"]);
    const moved = answer(1);
    moved.passes[0]!.workunits.push(moved.passes[1]!.workunits[0]!);
    moved.passes[1]!.workunits = [];
    expect(answerProblems(PASSES, moved, ceilings)).toEqual([
      "result 3 is answered in the pass at 100 but was not posted in it",
      "result 3 posted in the pass at 101 is missing from the answer",
    ]);
    const flipped = answer(1);
    flipped.passes[0]!.workunits[0]!.results[1]!.validate_state = "valid";
    expect(answerProblems(PASSES, flipped, ceilings)).toEqual(['result 2 (app alpha) was posted invalid and answered "valid"']);
    expect(answerProblems(PASSES, null, ceilings)).toEqual(["the answer has no list of passes"]);
  });

  it("refuses with one message that names the request and the results and says nothing was written", () => {
    const e = (() => {
      try {
        refuseUnreconciled(PASSES, answer(-1), ceilings);
      } catch (err) {
        return err as Error;
      }
      return null;
    })();
    expect(e).toBeInstanceOf(BridgeError);
    expect(e!.message).toMatch(
      /^the service's answer to POST 2 passes at 100…101 does not match the request, so none of it is written:\n {2}result 1 \(app alpha\)/,
    );
    expect(e!.message).toMatch(
      /Nothing of this request was written into the BOINC database and the cursor was not moved: the next run posts the same request again/,
    );
  });
});

describe("credit ceilings", () => {
  it("take the validator's cap per app, lowered to the service's own where it has one; 0 means no cap", () => {
    const caps = { byApp: new Map([["alpha", 50]]), fallback: DEFAULT_MAX_GRANTED_CREDIT };
    expect(creditCeiling("alpha", caps, 0)).toBe(50);
    expect(creditCeiling("alpha", caps, 30)).toBe(30);
    expect(creditCeiling("beta", caps, 0)).toBe(DEFAULT_MAX_GRANTED_CREDIT);
    expect(creditCeiling("beta", { byApp: new Map(), fallback: 0 }, 0)).toBe(Infinity);
    expect(creditProblem(0, 50)).toBeNull();
    expect(creditProblem(50, 50)).toBeNull();
    expect(creditProblem(Number.NaN, 50)).toBe("NaN is not a finite number");
    expect(creditProblem(Infinity, Infinity)).toBe("Infinity is not a finite number");
    const byId = new CreditCeilings(caps, [{ name: "alpha", max_granted_credit: 0 }], [{ id: 1, name: "alpha" }]);
    expect(byId.ofAppId(1)).toBe(50);
    expect(byId.ofAppId(9)).toBe(DEFAULT_MAX_GRANTED_CREDIT);
  });

  it("reads each validator's --max_granted_credit from config.xml's daemons, one dash or two", () => {
    const xml = `<boinc><config><db_name>b</db_name></config><daemons>
      <daemon><cmd>feeder -d 3</cmd></daemon>
      <daemon><cmd>sample_bitwise_validator -d 3 --app alpha --max_granted_credit 50 --no_credit</cmd></daemon>
      <daemon><cmd>sample_trivial_validator -app beta -max_granted_credit 1e3</cmd></daemon>
      <daemon><cmd>sample_trivial_validator --app gamma</cmd></daemon>
    </daemons></boinc>`;
    expect([...validatorCapsFromConfig(xml)]).toEqual([
      ["alpha", 50],
      ["beta", 1000],
    ]);
    expect(() => validatorCapsFromConfig(xml.replace("1e3", "lots"))).toThrow(
      /a validator of app 'beta' has --max_granted_credit 'lots', not a number/,
    );
  });
});
