/**
 * The service's answer to a batch of trickle messages is reconciled with the batch before
 * anything of it is written (bridge/trickle-answer.ts): each message answered once, none that was
 * not posted, each credit a finite number from 0 to what BOINC's trickle handler could pay it.
 * The ceilings are worked by hand: credit = runtime (cut at max_runtime) × FLOPS × 200 / 86400e9.
 */
import { describe, expect, it } from "vitest";
import { BridgeError } from "../../bridge/shared/errors";
import {
  type PostedTrickle,
  refuseUnreconciledTrickles,
  trickleAnswerProblems,
  trickleCeiling,
} from "../../bridge/write-back/trickle-answer";

const MAX_RUNTIME = 3600;
/** The project's largest p_fpops, for a host whose own is unknown. */
const LARGEST = 5e9;

/** 1: 3,600 s at 3e9 (ceiling 25); 2: 5,000 s cut to 3,600 at 3e9 (25); 3: 1,800 s, benchmark unknown, at most 5e9 (20.833…); 4: p_fpops 0 (0). */
const POSTED: PostedTrickle[] = [
  { id: 1, runtime: 3600, hostFpops: 3e9 },
  { id: 2, runtime: 5000, hostFpops: 3e9 },
  { id: 3, runtime: 1800, hostFpops: -1 },
  { id: 4, runtime: 3600, hostFpops: 0 },
];
const CEILINGS = [25, 25, 1.8e15 / 8.64e13, 0];

const answer = (credits: number[], ids = [1, 2, 3, 4]) => ({
  now: 1_700_000_000,
  messages: ids.map((id, i) => ({ id, replayed: false, granted_credit: credits[i] })),
});

describe("trickle answers", () => {
  it("ceilings: runtime cut at max_runtime, times the host's p_fpops or the project's largest when it is unknown", () => {
    POSTED.forEach((m, i) => expect(Math.abs(trickleCeiling(m, MAX_RUNTIME, LARGEST) - CEILINGS[i]!)).toBeLessThan(1e-12));
  });

  it("an answer at each ceiling, or below, is sound", () => {
    expect(trickleAnswerProblems(POSTED, answer(CEILINGS), MAX_RUNTIME, LARGEST)).toEqual([]);
    expect(trickleAnswerProblems(POSTED, answer([0, 12.5, 1, 0]), MAX_RUNTIME, LARGEST)).toEqual([]);
  });

  it("names every credit out of bounds, every message missing, doubled or not posted", () => {
    const lying = {
      now: 1,
      messages: [
        { id: 1, granted_credit: 25.001 },
        { id: 2, granted_credit: -1 },
        { id: 3, granted_credit: null },
        { id: 3, granted_credit: 1 },
        { id: 99, granted_credit: 1 },
      ],
    };
    expect(trickleAnswerProblems(POSTED, lying, MAX_RUNTIME, LARGEST)).toEqual([
      "message 1: granted_credit 25.001 is more than BOINC's trickle handler pays it (25: 3600 s at 3000000000 FLOPS)",
      "message 2: granted_credit -1 is negative",
      "message 3: granted_credit null is not a finite number",
      "message 99 is answered but was not posted",
      "message 3 is answered 2 times",
      "message 4 is missing from the answer",
    ]);
    // A host with p_fpops 0 earns nothing: any credit is too much.
    expect(trickleAnswerProblems(POSTED, answer([25, 25, 1, 1e-6]), MAX_RUNTIME, LARGEST)).toEqual([
      "message 4: granted_credit 0.000001 is more than BOINC's trickle handler pays it (0: 3600 s at 0 FLOPS)",
    ]);
    expect(trickleAnswerProblems(POSTED, { now: 1 }, MAX_RUNTIME, LARGEST)).toEqual(["the answer has no list of messages"]);
  });

  it("refuses a failing answer whole, saying nothing was written and the cursor stayed", () => {
    expect(() => refuseUnreconciledTrickles(POSTED, answer(CEILINGS), MAX_RUNTIME, LARGEST)).not.toThrow();
    const refuse = () => refuseUnreconciledTrickles(POSTED, answer([1e12, 25, 1, 0]), MAX_RUNTIME, LARGEST);
    expect(refuse).toThrow(BridgeError);
    expect(refuse).toThrow(
      /^the service's answer to POST 4 trickle messages \(ids 1…4\) does not match the request, so none of it is written:\n {2}message 1: granted_credit 1000000000000 is more[\s\S]*the trickle cursor was not moved/,
    );
  });
});
