import { describe, expect, it } from "vitest";
import { EMPTY_AVERAGE } from "../../src/credit/average";
import { type HostAppVersionKey, havKey } from "../../src/credit/host-app-version-key";
import {
  type PassApp,
  type PassState,
  type PassVersion,
  type ResultInput,
  type StoredResult,
  type WorkunitInput,
  ZERO_HOST_APP_VERSION,
  runPass,
} from "../../src/credit/pass";
import type { HostAppVersionStats } from "../../src/credit/pfc";
import { expectRel } from "./close";

// One app "alpha" (id 1) with one app version (id 10); workunits estimate 1e12 FLOP, bound 1e13.
// A result runs 100 s at 1e10 FLOPS (raw PFC 1e12, ratio 1) unless told otherwise.
const ALPHA: PassApp = {
  id: 1,
  name: "alpha",
  minAvgPfc: 1,
  hostScaleCheck: false,
  targetNresults: 2,
  creditMode: "adaptive",
  maxGrantedCredit: 73_000_000,
};
const VERSION: PassVersion = { appId: 1, pfc: EMPTY_AVERAGE, pfcScale: 0 };
/** credit of a PFC: 200 credits per 86400e9 FLOP */
const credit = (pfc: number) => (pfc * 200) / 86400e9;
const key = (hostId: number, appVersionId = 10): HostAppVersionKey => ({ hostId, appId: 1, appVersionId });

interface Setup {
  app?: Partial<PassApp>;
  version?: Partial<PassVersion>;
  havs?: Array<[number, Partial<HostAppVersionStats>]>;
  credited?: Array<[number, number]>;
  finals?: Array<[number, StoredResult]>;
}
function snapshot(s: Setup = {}): PassState {
  return {
    apps: new Map([["alpha", { ...ALPHA, ...s.app }]]),
    versions: new Map([[10, { ...VERSION, ...s.version }]]),
    hostAppVersions: new Map((s.havs ?? []).map(([hostId, h]) => [havKey(key(hostId)), { ...ZERO_HOST_APP_VERSION, ...h }])),
    creditedWorkunits: new Map(s.credited ?? []),
    finalResults: new Map(s.finals ?? []),
  };
}
const result = (id: number, over: Partial<ResultInput> = {}): ResultInput => ({
  id,
  hostId: 100 + id,
  userId: 200 + id,
  teamId: 300,
  appVersionId: 10,
  elapsedTime: 100,
  cpuTime: 100,
  flopsEstimate: 1e10,
  sentTime: 1000,
  receivedTime: 2000,
  validateState: "valid",
  runtimeOutlier: false,
  fingerprint: `fp-${id}`,
  ...over,
});
const workunit = (id: number, results: ResultInput[], over: Partial<WorkunitInput> = {}): WorkunitInput => ({
  id,
  app: "alpha",
  rscFpopsEst: 1e12,
  rscFpopsBound: 1e13,
  targetNresults: 2,
  results,
  ...over,
});
const stored = (over: Partial<StoredResult> = {}): StoredResult => ({
  fingerprint: "fp-1",
  validateState: "valid",
  grantedCredit: 3.5,
  claimedCredit: 2.25,
  pfcMode: "approx",
  ...over,
});

describe("a fresh workunit with two valid results on new hosts (docs/spec/credit.md#workunits-in-order)", () => {
  // r1: 100 s → 1e12 FLOP; r2: 200 s → 2e12 FLOP. No scales yet, so both claims are APPROX.
  // pegged({1e12, 2e12}, anchor 1e12): weights 10 and 10/11 (units 1e11) → 13/12 · 1e12
  const wuCredit = credit((13 / 12) * 1e12);
  const out = runPass(snapshot(), [workunit(1, [result(1), result(2, { elapsedTime: 200 })])]);
  const wu = out.workunits[0]!;

  it("credits the pegged average of the claims to both results", () => {
    expect(out.conflicts).toEqual([]);
    expect(wu.path).toBe("fresh");
    expect(wu.replayed).toBe(false);
    expectRel(wu.credit, wuCredit);
    expect(wu.results.map((r) => r.grantedCredit)).toEqual([wu.credit, wu.credit]);
    expect(wu.results.map((r) => r.pfcMode)).toEqual(["approx", "approx"]);
  });

  it("reports each result's own claim", () => {
    expectRel(wu.results[0]!.claimedCredit!, credit(1e12));
    expectRel(wu.results[1]!.claimedCredit!, credit(2e12));
    expect(wu.results[1]!.explanation).toEqual({ rawPfc: 2e12, pfcScale: 0, hostScale: 0, runtimeOutlier: false });
  });

  it("grants to each result's host, user and team, starting at its sent_time", () => {
    expect(out.effects.grants).toEqual([
      { resultId: 1, hostId: 101, userId: 201, teamId: 300, appId: 1, credit: wu.credit, startTime: 1000 },
      { resultId: 2, hostId: 102, userId: 202, teamId: 300, appId: 1, credit: wu.credit, startTime: 1000 },
    ]);
  });

  it("records the workunit with the first valid result as canonical", () => {
    expect(out.effects.workunits).toEqual([{ id: 1, appId: 1, credit: wu.credit, canonicalResultId: 1 }]);
  });

  it("creates both host_app_versions and gives each its samples and consecutive_valid + 1", () => {
    expect(out.effects.hostAppVersionsSeen).toEqual([key(101), key(102)]);
    expect(out.effects.hostAppVersionChanges).toEqual([
      // The neutrality window: each valid result's granted credit and elapsed × 1 device, received in period 0.
      {
        ...key(101),
        samples: { pfc: 1, et: 100 / 1e12, turnaround: 1000 },
        consecutiveValid: "increment",
        neutral: { period: 0, credit: wu.credit, deviceSeconds: 100, results: 1 },
      },
      {
        ...key(102),
        samples: { pfc: 2, et: 200 / 1e12, turnaround: 1000 },
        consecutiveValid: "increment",
        neutral: { period: 0, credit: wu.credit, deviceSeconds: 200, results: 1 },
      },
    ]);
  });

  it("queues the app-version samples: pfc ratios and claimed credits at sent_time", () => {
    expect(out.effects.versionPfcSamples.get(10)).toEqual([1, 2]);
    const cs = out.effects.versionCreditSamples.get(10)!;
    expect(cs.map((s) => s.time)).toEqual([1000, 1000]);
    expectRel(cs[0]!.credit, credit(1e12));
    expectRel(cs[1]!.credit, credit(2e12));
  });
});

describe("fresh workunits: other claims", () => {
  it("anonymous-platform hosts without history get the WU estimate rsc_fpops_est × min_avg_pfc", () => {
    // each claim = 1e12 × 0.5; pegged of two equal values is that value
    const anon = (id: number) => result(id, { appVersionId: -2 });
    const out = runPass(snapshot({ app: { minAvgPfc: 0.5 } }), [workunit(1, [anon(1), anon(2)])]);
    expectRel(out.workunits[0]!.credit, credit(5e11));
    expect(out.effects.hostAppVersionsSeen).toEqual([key(101, -2), key(102, -2)]);
    expect(out.effects.versionPfcSamples.size).toBe(0);
    expect(out.effects.versionCreditSamples.size).toBe(0);
  });

  it("queues the claim after the bound cap as the app-version credit sample (docs/spec/credit.md#finite-numbers)", () => {
    // 5000 s × 1e10 = 5e13 > bound 1e13; credit(1e13 FLOP) = 23.148148148148149 (docs/spec/credit.md#reference-values)
    const out = runPass(snapshot(), [workunit(1, [result(1, { elapsedTime: 5000 })])]);
    expect(out.effects.versionCreditSamples.get(10)).toEqual([{ credit: 23.148148148148149, time: 1000 }]);
    expect(out.workunits[0]!.results[0]!.pfcMode).toBe("approx");
  });

  it("a runtime outlier still gives an app-version credit sample but no pfc sample (docs/spec/edge-cases.md#e8)", () => {
    const out = runPass(snapshot(), [workunit(1, [result(1, { runtimeOutlier: true })])]);
    expect(out.effects.versionPfcSamples.size).toBe(0);
    expect(out.effects.versionCreditSamples.get(10)).toHaveLength(1);
    expect(out.effects.hostAppVersionChanges).toEqual([
      {
        ...key(101),
        samples: {},
        consecutiveValid: "increment",
        neutral: { period: 0, credit: out.workunits[0]!.credit, deviceSeconds: 100, results: 1 },
      },
    ]);
  });
});

describe("invalid and inconclusive results (docs/spec/credit.md#verdicts)", () => {
  it("an invalid result gets nothing and resets consecutive_valid", () => {
    const out = runPass(snapshot({ havs: [[102, { consecutiveValid: 5 }]] }), [
      workunit(1, [result(1), result(2, { validateState: "invalid" })]),
    ]);
    const [r1, r2] = out.workunits[0]!.results;
    // one valid APPROX claim of 1e12, returned unchanged by pegged_average
    expectRel(r1!.grantedCredit, credit(1e12));
    expect(r2).toEqual({ id: 2, validateState: "invalid", grantedCredit: 0, claimedCredit: null, pfcMode: null, replayed: false });
    expect(out.effects.grants.map((g) => g.resultId)).toEqual([1]);
    expect(out.effects.hostAppVersionChanges[1]).toEqual({ ...key(102), samples: {}, consecutiveValid: "reset" });
    // an invalid result still names its host, user and team (docs/spec/credit.md#attribution)
    expect(out.effects.attributions).toEqual([
      { hostId: 101, userId: 201, teamId: 300 },
      { hostId: 102, userId: 202, teamId: 300 },
    ]);
  });

  it("an invalid result on a host_app_version already at consecutive_valid 0 writes nothing", () => {
    const out = runPass(snapshot({ havs: [[102, {}]] }), [workunit(1, [result(1), result(2, { validateState: "invalid" })])]);
    expect(out.effects.hostAppVersionChanges.map((c) => c.hostId)).toEqual([101]);
  });

  it("inconclusive results change no statistic and leave the workunit uncredited", () => {
    const pending = (id: number) => result(id, { validateState: "inconclusive" });
    const out = runPass(snapshot(), [workunit(1, [pending(1), pending(2)])]);
    const wu = out.workunits[0]!;
    expect(wu.path).toBe("pending");
    expect(wu.credit).toBe(0);
    expect(wu.results.map((r) => [r.validateState, r.grantedCredit])).toEqual([
      ["inconclusive", 0],
      ["inconclusive", 0],
    ]);
    const e = out.effects;
    expect([e.workunits, e.results, e.grants, e.hostAppVersionChanges]).toEqual([[], [], [], []]);
    expect(e.versionPfcSamples.size + e.versionCreditSamples.size).toBe(0);
    // ...but they name their accounts, which start (or move) here (docs/spec/credit.md#attribution, docs/spec/credit.md#first-seen)
    expect(e.attributions).toEqual([
      { hostId: 101, userId: 201, teamId: 300 },
      { hostId: 102, userId: 202, teamId: 300 },
    ]);
  });

  it("an inconclusive result beside a valid one is not stored, so it can come back", () => {
    const out = runPass(snapshot(), [workunit(1, [result(1), result(2, { validateState: "inconclusive" })])]);
    expect(out.workunits[0]!.path).toBe("fresh");
    expect(out.effects.results.map((r) => r.id)).toEqual([1]);
  });
});

describe("late results of a credited workunit (docs/spec/credit.md#re-posts-and-late-results, docs/spec/edge-cases.md#e19)", () => {
  // Host 103 has 10 pfc samples averaging 1 and 9 consecutive valid results; the version has
  // 100 samples averaging 1 and pfc_scale 0.5; the app asks for the host-scale check.
  const setup: Setup = {
    app: { hostScaleCheck: true },
    version: { pfc: { n: 100, avg: 1 }, pfcScale: 0.5 },
    havs: [[103, { pfc: { n: 10, avg: 1 }, consecutiveValid: 9 }]],
  };

  it("grants the stored credit, after consecutive_valid + 1 lets host scaling in", () => {
    const out = runPass(snapshot({ ...setup, credited: [[1, 3.5]], finals: [[1, stored()]] }), [workunit(1, [result(1), result(3)])]);
    const wu = out.workunits[0]!;
    expect(wu.path).toBe("late");
    expect(wu.credit).toBe(3.5);
    const r3 = wu.results[1]!;
    expect(r3.grantedCredit).toBe(3.5);
    // cv 9 + 1 = 10 ≥ 10 before get_pfc: host scale 1/1 = 1, NORMAL, claim 1e12 × 0.5 × 1
    expect(r3.pfcMode).toBe("normal");
    expect(r3.explanation).toEqual({ rawPfc: 1e12, pfcScale: 0.5, hostScale: 1, runtimeOutlier: false });
    expectRel(r3.claimedCredit!, credit(5e11));
    expect(out.effects.grants.map((g) => [g.resultId, g.credit])).toEqual([[3, 3.5]]);
    expect(out.effects.workunits).toEqual([]);
    expect(out.effects.hostAppVersionChanges).toEqual([
      {
        ...key(103),
        samples: { pfc: 1, et: 100 / 1e12, turnaround: 1000 },
        consecutiveValid: "increment",
        neutral: { period: 0, credit: 3.5, deviceSeconds: 100, results: 1 },
      },
    ]);
  });

  it("in the quorum path the same host reads consecutive_valid before the increment: APPROX", () => {
    const out = runPass(snapshot(setup), [workunit(1, [result(3)])]);
    expect(out.workunits[0]!.results[0]!.pfcMode).toBe("approx");
  });

  it("a later workunit in the same pass sees the consecutive_valid an earlier one wrote", () => {
    const out = runPass(snapshot(setup), [workunit(1, [result(3)]), workunit(2, [result(4, { hostId: 103 })])]);
    expect(out.workunits.map((w) => w.results[0]!.pfcMode)).toEqual(["approx", "normal"]);
  });

  it("grants the stored credit as it is, without recomputing or capping it", () => {
    const out = runPass(snapshot({ credited: [[1, 1e8]] }), [workunit(1, [result(3)])]);
    expect(out.workunits[0]!.results[0]!.grantedCredit).toBe(1e8);
  });

  it("a late invalid result resets consecutive_valid and gets nothing", () => {
    const out = runPass(snapshot({ ...setup, credited: [[1, 3.5]] }), [workunit(1, [result(3, { validateState: "invalid" })])]);
    expect(out.workunits[0]!.results[0]!.grantedCredit).toBe(0);
    expect(out.effects.grants).toEqual([]);
    expect(out.effects.hostAppVersionChanges).toEqual([{ ...key(103), samples: {}, consecutiveValid: "reset" }]);
  });
});

describe("re-posts (docs/spec/credit.md#re-posts-and-late-results)", () => {
  it("a result with the same fingerprint is replayed with its stored outcome", () => {
    const finals: Array<[number, StoredResult]> = [
      [1, stored()],
      [2, stored({ fingerprint: "fp-2", validateState: "invalid", grantedCredit: 0, claimedCredit: null, pfcMode: null })],
    ];
    const out = runPass(snapshot({ credited: [[1, 3.5]], finals }), [workunit(1, [result(1), result(2, { validateState: "invalid" })])]);
    expect(out.conflicts).toEqual([]);
    const wu = out.workunits[0]!;
    expect(wu.replayed).toBe(true);
    expect(wu.credit).toBe(3.5);
    expect(wu.results).toEqual([
      { id: 1, validateState: "valid", grantedCredit: 3.5, claimedCredit: 2.25, pfcMode: "approx", replayed: true },
      { id: 2, validateState: "invalid", grantedCredit: 0, claimedCredit: null, pfcMode: null, replayed: true },
    ]);
    const e = out.effects;
    expect([e.grants, e.results, e.workunits, e.hostAppVersionChanges, e.hostAppVersionsSeen]).toEqual([[], [], [], [], []]);
  });

  it("a result with another fingerprint is a conflict at its path", () => {
    const finals: Array<[number, StoredResult]> = [[2, stored({ fingerprint: "fp-2" })]];
    const out = runPass(snapshot({ credited: [[1, 3.5]], finals }), [
      workunit(1, [result(1), result(2, { fingerprint: "changed" })]),
      workunit(5, [result(7, { fingerprint: "x" }), result(2, { fingerprint: "changed" })]),
    ]);
    expect(out.conflicts.map((c) => c.path)).toEqual(["workunits[0].results[1]", "workunits[1].results[1]"]);
    expect(out.conflicts[0]!.message).toContain("2");
    expect(out.workunits[0]!.results.map((r) => r.id)).toEqual([1]);
  });
});

describe("consecutive_valid under adaptive replication (docs/spec/edge-cases.md#e21)", () => {
  it("a workunit sent unreplicated (wu target 1, app target 2) does not increment it", () => {
    const out = runPass(snapshot(), [workunit(1, [result(1)], { targetNresults: 1 })]);
    const change = out.effects.hostAppVersionChanges[0]!;
    expect(change.consecutiveValid).toBeUndefined();
    expect(change.samples.pfc).toBe(1);
  });

  it("an app without adaptive replication (app target 1) increments it", () => {
    const out = runPass(snapshot({ app: { targetNresults: 1 } }), [workunit(1, [result(1)], { targetNresults: 1 })]);
    expect(out.effects.hostAppVersionChanges[0]!.consecutiveValid).toBe("increment");
  });
});

describe("two results of one workunit on the same host and app version", () => {
  it("each reads the stored host_app_version and the last result's copy is the one written", () => {
    // both results on host 101 (cv 3 stored); BOINC loads one copy per result and writes each back
    const out = runPass(snapshot({ havs: [[101, { consecutiveValid: 3 }]] }), [
      workunit(1, [result(1), result(2, { hostId: 101, elapsedTime: 200 })]),
    ]);
    expect(out.effects.hostAppVersionsSeen).toEqual([]);
    expect(out.effects.hostAppVersionChanges).toEqual([
      // The neutrality window counts both valid results, though only the last copy's statistics are written.
      {
        ...key(101),
        samples: { pfc: 2, et: 200 / 1e12, turnaround: 1000 },
        consecutiveValid: "increment",
        neutral: { period: 0, credit: 2 * out.workunits[0]!.credit, deviceSeconds: 100 + 200, results: 2 },
      },
    ]);
  });
});

describe("credit modes (docs/spec/credit.md#credit-mode, docs/spec/credit.md#validator-flow)", () => {
  const two = (over: Partial<WorkunitInput> = {}, r2: Partial<ResultInput> = {}) => [
    workunit(1, [result(1, { claimedCredit: 7 }), result(2, { claimedCredit: 9, ...r2 })], over),
  ];

  it("fixed grants the workunit's canonical_credit, and statistics still run", () => {
    const out = runPass(snapshot({ app: { creditMode: "fixed" } }), two({ canonicalCredit: 42 }));
    expect(out.workunits[0]!.results.map((r) => r.grantedCredit)).toEqual([42, 42]);
    expect(out.workunits[0]!.results[0]!.pfcMode).toBe("approx");
    expect(out.effects.versionPfcSamples.get(10)).toEqual([1, 1]);
  });

  it("fixed without canonical_credit grants 0, and the grant still happens (docs/spec/edge-cases.md#e17)", () => {
    const out = runPass(snapshot({ app: { creditMode: "fixed" } }), two());
    expect(out.effects.grants.map((g) => g.credit)).toEqual([0, 0]);
  });

  it("post_assigned grants the canonical (first valid) result's claimed_credit", () => {
    const out = runPass(snapshot({ app: { creditMode: "post_assigned" } }), two());
    const rs = out.workunits[0]!.results;
    expect(rs.map((r) => r.grantedCredit)).toEqual([7, 7]);
    expect(rs.map((r) => r.claimedCredit)).toEqual([7, 9]);
  });

  it("post_assigned skips an invalid first result when choosing the canonical one", () => {
    const out = runPass(snapshot({ app: { creditMode: "post_assigned" } }), [
      workunit(1, [result(1, { claimedCredit: 7, validateState: "invalid" }), result(2, { claimedCredit: 9 })]),
    ]);
    expect(out.workunits[0]!.results[1]!.grantedCredit).toBe(9);
    expect(out.effects.workunits[0]!.canonicalResultId).toBe(2);
  });

  it("none grants nothing but still counts the results and updates statistics", () => {
    const out = runPass(snapshot({ app: { creditMode: "none" } }), two());
    expect(out.workunits[0]!.credit).toBe(0);
    expect(out.workunits[0]!.results.map((r) => r.grantedCredit)).toEqual([0, 0]);
    expect(out.effects.grants).toEqual([]);
    expect(out.effects.hostAppVersionChanges.map((c) => [c.consecutiveValid, c.samples.pfc])).toEqual([
      ["increment", 1],
      ["increment", 1],
    ]);
    expect(out.effects.versionCreditSamples.get(10)).toHaveLength(2);
  });

  it("runtime takes low_average over valid and invalid results and skips all statistics (docs/spec/edge-cases.md#e22)", () => {
    // r1 valid 100 s → 1e12; r2 invalid 300 s → 3e12; low_average: 2·1·3/(1 + 3) = 1.5 (units 1e12)
    const out = runPass(snapshot({ app: { creditMode: "runtime" } }), two({}, { validateState: "invalid", elapsedTime: 300 }));
    const [r1, r2] = out.workunits[0]!.results;
    expectRel(r1!.grantedCredit, credit(1.5e12));
    expect(r2!.grantedCredit).toBe(0);
    expect([r1!.claimedCredit, r1!.pfcMode]).toEqual([null, null]);
    expect(out.effects.hostAppVersionChanges).toEqual([
      {
        ...key(101),
        samples: {},
        consecutiveValid: "increment",
        neutral: { period: 0, credit: r1!.grantedCredit, deviceSeconds: 100, results: 1 },
      },
    ]);
    expect(out.effects.versionPfcSamples.size + out.effects.versionCreditSamples.size).toBe(0);
  });

  it("runtime still updates statistics for a late result (docs/spec/edge-cases.md#e19)", () => {
    const out = runPass(snapshot({ app: { creditMode: "runtime" }, credited: [[1, 3.5]] }), [workunit(1, [result(3)])]);
    expect(out.workunits[0]!.results[0]!.grantedCredit).toBe(3.5);
    expect(out.effects.hostAppVersionChanges[0]!.samples.pfc).toBe(1);
    expect(out.effects.versionPfcSamples.get(10)).toEqual([1]);
  });
});

describe("max_granted_credit (docs/spec/edge-cases.md#e24)", () => {
  it("claims over the cap are INVALID; the WU estimate that remains is capped", () => {
    // each claim credit(1e12) ≈ 2.31 > 2 → INVALID; nothing left → anchor 1e12 → 2.31 → min(·, 2)
    const out = runPass(snapshot({ app: { maxGrantedCredit: 2 } }), [workunit(1, [result(1), result(2)])]);
    const wu = out.workunits[0]!;
    expect(wu.credit).toBe(2);
    expect(wu.results.map((r) => [r.grantedCredit, r.pfcMode])).toEqual([
      [2, "invalid"],
      [2, "invalid"],
    ]);
  });

  it("caps a fixed credit at the default 73,000,000", () => {
    const out = runPass(snapshot({ app: { creditMode: "fixed" } }), [workunit(1, [result(1)], { canonicalCredit: 1e9 })]);
    expect(out.workunits[0]!.credit).toBe(73_000_000);
  });

  it("0 disables the cap", () => {
    const out = runPass(snapshot({ app: { creditMode: "fixed", maxGrantedCredit: 0 } }), [
      workunit(1, [result(1)], { canonicalCredit: 1e9 }),
    ]);
    expect(out.workunits[0]!.credit).toBe(1e9);
  });
});

describe("the neutrality window's samples (ride on the row's change)", () => {
  const T = 30 * 86400;
  it("device-seconds are elapsed × devices; the period is the received time's", () => {
    const out = runPass(snapshot({ app: { creditMode: "fixed" } }), [
      workunit(1, [result(1, { devices: 4, receivedTime: 700 * T + 5 }), result(2, { devices: 0.5 })], { canonicalCredit: 10 }),
    ]);
    expect(out.effects.hostAppVersionChanges.map((c) => c.neutral)).toEqual([
      { period: 700, credit: 10, deviceSeconds: 400, results: 1 },
      { period: 0, credit: 10, deviceSeconds: 50, results: 1 },
    ]);
  });

  it("no sample from an app whose validation grants nothing, an invalid result or an anonymous platform", () => {
    const none = runPass(snapshot({ app: { creditMode: "none" } }), [workunit(1, [result(1)])]);
    expect(none.effects.hostAppVersionChanges.map((c) => c.neutral)).toEqual([undefined]);
    const mixed = runPass(snapshot({ app: { creditMode: "fixed" } }), [
      workunit(1, [result(1), result(2, { validateState: "invalid" }), result(3, { appVersionId: -2 })], { canonicalCredit: 10 }),
    ]);
    expect(mixed.effects.hostAppVersionChanges.map((c) => [c.hostId, c.neutral?.results])).toEqual([
      [101, 1],
      [103, undefined],
    ]);
  });
});
