/**
 * The order of a write batch is WRITE_PHASES (src/db/write-phases.ts): the list keeps the
 * rules it states, and each writer's statements write their phase's tables, in the list's
 * order. The rules are read from the list, not from comments beside the statements.
 */
import { type SQL } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { EMPTY_AVERAGE } from "../../src/credit/average";
import { type PassEffects, type PassState, type ResultInput, runPass } from "../../src/credit/pass";
import type { HistoryTarget } from "../../src/db/history-transitions";
import { passBatchWritePhases, passBatchWrites } from "../../src/db/pass-batch-writes";
import { passWritePhases, passWrites } from "../../src/db/pass-writes";
import { type PhasedWrites, WRITE_PHASES, type WritePhase, assembleWrites } from "../../src/db/write-phases";

const dialect = new SQLiteAsyncDialect();
const PHASES: readonly WritePhase[] = WRITE_PHASES.map((p) => p.phase);

/** The table a statement writes: the first INSERT INTO, UPDATE or DELETE FROM after its CTEs (which only select). */
function target(s: SQL): string {
  const text = dialect.sqlToQuery(s).sql;
  const m = /(?:INSERT INTO|UPDATE|DELETE FROM) "(\w+)"/.exec(text);
  if (!m) throw new Error(`no target table in ${text}`);
  return m[1]!;
}

const text = (s: SQL) => dialect.sqlToQuery(s);

/** The writer's batch is its phases assembled: each statement's phase, in the batch's order. */
function phasesOf(statements: readonly SQL[], phased: PhasedWrites): WritePhase[] {
  expect(statements.map(text)).toEqual(assembleWrites(phased).map(text));
  return PHASES.flatMap((phase) => (phased[phase] ?? []).map(() => phase));
}

/** A writer's batch against the list: phase order, each phase's tables, each rule. Returns the phases it used. */
function expectInListOrder(statements: readonly SQL[], phased: PhasedWrites): Set<WritePhase> {
  const phases = phasesOf(statements, phased);
  statements.forEach((s, i) => {
    const rule = WRITE_PHASES.find((p) => p.phase === phases[i])!;
    expect(rule.writes as readonly string[], `${rule.phase} writes ${target(s)}`).toContain(target(s));
  });
  for (const rule of WRITE_PHASES) {
    for (const before of rule.after) {
      const lastBefore = phases.lastIndexOf(before);
      const firstAfter = phases.indexOf(rule.phase);
      if (lastBefore >= 0 && firstAfter >= 0) expect(lastBefore, `${before} before ${rule.phase}: ${rule.why}`).toBeLessThan(firstAfter);
    }
  }
  return new Set(phases);
}

const state: PassState = {
  apps: new Map([
    [
      "alpha",
      {
        id: 1,
        name: "alpha",
        minAvgPfc: 1,
        hostScaleCheck: false,
        targetNresults: 2,
        creditMode: "adaptive",
        maxGrantedCredit: 73_000_000,
        creditPolicy: "fair",
      },
    ],
  ]),
  versions: new Map([[10, { appId: 1, pfc: EMPTY_AVERAGE, pfcScale: 0 }]]),
  hostAppVersions: new Map(),
  creditedWorkunits: new Map(),
  finalResults: new Map(),
};
const result = (id: number, hostId: number, userId: number, teamId: number): ResultInput => ({
  id,
  hostId,
  userId,
  teamId,
  appVersionId: 10,
  elapsedTime: 100,
  cpuTime: 100,
  flopsEstimate: 1e10,
  sentTime: 1000,
  receivedTime: 2000,
  validateState: "valid",
  runtimeOutlier: false,
  fingerprint: `fp-${id}`,
});
/** A pass of one workunit whose two valid results name a stored host (1) and a new one (2). */
function effectsOf(k: number): PassEffects {
  const outcome = runPass(state, [
    {
      id: k,
      app: "alpha",
      rscFpopsEst: 1e12,
      rscFpopsBound: 1e13,
      targetNresults: 2,
      results: [result(10 * k + 1, 1, 1, 1), result(10 * k + 2, 2, 2, 2)],
    },
  ]);
  return outcome.effects;
}
const existing = { hosts: new Set([1]), users: new Set([1]), teams: new Set([1]) };

describe("the write phases", () => {
  it("are listed after every phase they must follow, each once", () => {
    expect(new Set(PHASES).size).toBe(PHASES.length);
    for (const rule of WRITE_PHASES) {
      for (const before of rule.after)
        expect(PHASES.indexOf(before), `${before} before ${rule.phase}`).toBeLessThan(PHASES.indexOf(rule.phase));
    }
  });

  it("order a pass alone's batch, whether its holders are known or not and wherever its history goes", () => {
    const effects = effectsOf(1);
    expect(effects.grants.length).toBe(2);
    const cases: [typeof existing | undefined, HistoryTarget][] = [
      [existing, "guarded"],
      [existing, "queue"],
      [undefined, "ledger"],
    ];
    for (const args of cases) {
      const used = expectInListOrder(passWrites(7, 3000, effects, ...args), passWritePhases(7, 3000, effects, ...args));
      for (const phase of [
        "holderCounts",
        "outcomes",
        "workunits",
        "holders",
        "hostAppVersions",
        "finishedDays",
        "holderCredit",
      ] as const) {
        expect(used).toContain(phase);
      }
      for (const phase of ["appCreditQueue", "projectCredit", "versions", "kvMarks"] as const) expect(used).toContain(phase);
    }
  });

  it("order a pass batch's", () => {
    const passes = [1, 2, 3].map((k) => ({ now: 3000 + k, effects: effectsOf(k) }));
    for (const history of ["guarded", "ledger", "queue"] as const) {
      const used = expectInListOrder(passBatchWrites(7, passes, existing, history), passBatchWritePhases(7, passes, existing, history));
      for (const phase of [
        "holderCounts",
        "outcomes",
        "workunits",
        "holders",
        "hostAppVersions",
        "finishedDays",
        "holderCredit",
      ] as const) {
        expect(used).toContain(phase);
      }
      for (const phase of ["appCreditQueue", "projectCredit", "versionCredit", "versions", "kvMarks"] as const)
        expect(used).toContain(phase);
    }
  });
});
