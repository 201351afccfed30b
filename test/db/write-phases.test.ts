/**
 * The order of a write batch is WRITE_PHASES (src/db/write-phases.ts): the list keeps the
 * rules it states, and every writer's batch (passes, alone or batched; paid trickles;
 * reported errors) writes its tables in an order the list allows. Each statement's target is
 * read from its SQL and found among the schema's drizzle tables; the batch is in list order
 * when each statement can be given a phase that writes its table, no earlier than the phase of
 * the statement before. The rules are read from the list, not from comments beside the
 * statements, and the writers' batches are checked as they run them, not against their own parts.
 */
import { type SQL, getTableName, is } from "drizzle-orm";
import { SQLiteAsyncDialect, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { EMPTY_AVERAGE } from "../../src/credit/average";
import { type PassEffects, type PassState, type ResultInput, runPass } from "../../src/credit/pass";
import { errorWrites } from "../../src/db/error-writes";
import type { HistoryTarget } from "../../src/db/history-transitions";
import { passBatchWrites } from "../../src/db/pass-batch-writes";
import * as schema from "../../src/db/schema";
import { trickleWrites } from "../../src/db/trickle-writes";
import { WRITE_PHASES, type WritePhase } from "../../src/db/write-phases";

const dialect = new SQLiteAsyncDialect();
const PHASES: readonly WritePhase[] = WRITE_PHASES.map((p) => p.phase);
const TABLES = new Map(
  (Object.values(schema) as unknown[]).filter((x): x is SQLiteTable => is(x, SQLiteTable)).map((t) => [getTableName(t), t] as const),
);

/** The schema table a statement writes: the first INSERT INTO, UPDATE or DELETE FROM after its CTEs (which only select). */
function target(s: SQL): SQLiteTable {
  const text = dialect.sqlToQuery(s).sql;
  const m = /(?:INSERT INTO|UPDATE|DELETE FROM) "(\w+)"/.exec(text);
  const table = m && TABLES.get(m[1]!);
  if (!table) throw new Error(`no schema table written by ${text}`);
  return table;
}

/**
 * Each statement's phase, the earliest the list allows: one that writes its table, at or after
 * the previous statement's. Throws at the first statement no such phase writes.
 */
function phasesInListOrder(statements: readonly SQL[]): WritePhase[] {
  let at = 0;
  return statements.map((s, n) => {
    const table = target(s);
    const found = WRITE_PHASES.findIndex((p, i) => i >= at && (p.writes as readonly SQLiteTable[]).includes(table));
    if (found < 0) throw new Error(`statement ${n} writes ${getTableName(table)}: no phase from ${PHASES[at]} on writes it`);
    at = found;
    return PHASES[found]!;
  });
}

/** The tables a batch writes, by name, in the order it first writes them. */
const tablesOf = (statements: readonly SQL[]) => [...new Set(statements.map((s) => getTableName(target(s))))];

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
/** A pass of one workunit whose two valid results name a stored host (1) and a new one (2), owned by `owner`. */
function effectsOf(k: number, owner = 2): PassEffects {
  const outcome = runPass(state, [
    {
      id: k,
      app: "alpha",
      rscFpopsEst: 1e12,
      rscFpopsBound: 1e13,
      targetNresults: 2,
      results: [result(10 * k + 1, 1, 1, 1), result(10 * k + 2, 2, owner, 2)],
    },
  ]);
  return outcome.effects;
}

const PROJECT = 7;
const existing = { hosts: new Set([1]), users: new Set([1]), teams: new Set([1]) };
/** Three passes; the last gives host 2, which the first creates, another owner. */
const passBatch = () => [1, 2, 3].map((k) => ({ now: 3000 + k, effects: effectsOf(k, k === 3 ? 3 : 2) }));
const nothingStored = { hosts: new Set<number>(), users: new Set<number>(), teams: new Set<number>() };
/** A pass alone: a batch of one through the one writer. */
const passAlone = (effects: PassEffects, known: typeof existing, history: HistoryTarget) =>
  passBatchWrites(PROJECT, [{ now: 3000, effects }], known, history);

/** A trickle batch: two paid messages of hosts 1 (stored) and 3 (its user 3 and team 3 named first). */
function trickles(): SQL[] {
  const grants = [
    { resultId: 0, hostId: 1, userId: 1, teamId: 1, appId: 1, credit: 2.5, startTime: 2900, perApp: "credit" as const },
    { resultId: 0, hostId: 3, userId: 3, teamId: 3, appId: 1, credit: 1.25, startTime: 2950, perApp: "credit" as const },
  ];
  const paid = grants.map((g, n) => ({
    id: 500 + n,
    appId: 1,
    hostId: g.hostId,
    fingerprint: `${900 + n}`,
    credit: g.credit,
    runtime: 100,
    runtimeCut: false,
    flops: 1e9,
    flopsSource: "host" as const,
  }));
  return trickleWrites(
    PROJECT,
    3000,
    paid,
    grants,
    grants.map((g) => ({ hostId: g.hostId, userId: g.userId, teamId: g.teamId })),
  );
}

/** Reported errors: one on a stored row, one creating its row, both counted in the fair error rate. */
function errors(): SQL[] {
  const stored = { hostId: 1, appId: 1, appVersionId: 10 };
  const fresh = { hostId: 2, appId: 1, appVersionId: 10 };
  return errorWrites(PROJECT, 3000, {
    outcomes: [1, 2].map((hostId, n) => ({
      id: 90 + n,
      appId: 1,
      hostId,
      outcome: "error" as const,
      grantedCredit: 0,
      fingerprint: `${n}`,
    })),
    fresh: [fresh],
    changes: [stored, fresh].map((k) => ({ ...k, samples: {}, consecutiveValid: "reset" as const })),
    fairErrors: [stored, fresh],
  });
}

describe("the write phases", () => {
  it("are listed after every phase they must follow, each once, each naming schema tables", () => {
    expect(new Set(PHASES).size).toBe(PHASES.length);
    for (const rule of WRITE_PHASES) {
      for (const before of rule.after)
        expect(PHASES.indexOf(before), `${before} before ${rule.phase}`).toBeLessThan(PHASES.indexOf(rule.phase));
      for (const table of rule.writes) expect(TABLES.get(getTableName(table)), rule.phase).toBe(table);
    }
  });

  it("order a pass alone's batch, whether its holders are known or not and wherever its history goes", () => {
    const effects = effectsOf(1);
    expect(effects.grants.length).toBe(2);
    const cases: [typeof existing, HistoryTarget][] = [
      [existing, "guarded"],
      [existing, "queue"],
      [nothingStored, "ledger"],
    ];
    for (const args of cases) {
      const batch = passAlone(effects, ...args);
      expect(() => phasesInListOrder(batch), args[1]).not.toThrow();
      // One write of the project's row: its grant run also counts the new holders.
      expect(batch.filter((s) => target(s) === schema.projects)).toHaveLength(1);
      const history = { guarded: ["credit_history", "history_queue"], queue: ["history_queue"], ledger: ["credit_history"] }[args[1]];
      expect(new Set(tablesOf(batch))).toEqual(
        new Set([
          "projects",
          "results",
          "workunits",
          "hosts",
          "users",
          "teams",
          "host_app_versions",
          ...history,
          "app_credit_queue",
          "app_versions",
          "kv_marks",
        ]),
      );
    }
  });

  it("order a pass batch's", () => {
    for (const history of ["guarded", "ledger", "queue"] as const) {
      const batch = passBatchWrites(PROJECT, passBatch(), existing, history);
      const phases = phasesInListOrder(batch);
      // The app versions' walks, and the owner a later pass gave a host the batch's grants
      // inserted: a plain write of hosts after the last of their grant walks.
      expect(phases).toContain("versions");
      const hostWrites = batch.flatMap((s, n) =>
        target(s) === schema.hosts ? [{ n, walk: dialect.sqlToQuery(s).sql.startsWith("WITH RECURSIVE") }] : [],
      );
      const lastWalk = hostWrites.filter((w) => w.walk).at(-1)!;
      expect(
        hostWrites.some((w) => !w.walk && w.n > lastWalk.n),
        history,
      ).toBe(true);
      expect(tablesOf(batch)).toContain("app_credit_queue");
    }
  });

  it("order a trickle batch's and an error report's", () => {
    // The project's row once, before the holders: its grant run also counts the holders not stored yet.
    expect(tablesOf(trickles())).toEqual([
      "trickles",
      "credit_history",
      "history_queue",
      "app_credit_queue",
      "projects",
      "hosts",
      "users",
      "teams",
      "kv_marks",
    ]);
    expect(trickles().filter((s) => target(s) === schema.projects)).toHaveLength(1);
    expect(phasesInListOrder(trickles())).toContain("projectCredit");
    expect(tablesOf(errors())).toEqual(["results", "host_app_versions"]);
    expect(() => phasesInListOrder(errors())).not.toThrow();
    // fairErrors after hostAppVersions, which the tables alone cannot tell: the rate's update is last.
    const texts = errors().map((s) => dialect.sqlToQuery(s).sql);
    const fairErr = `"${schema.hostAppVersions.fairErr.name}"`;
    expect(texts.findIndex((t) => t.includes(`${fairErr} = ${fairErr} +`))).toBe(texts.length - 1);
  });

  it("find a batch out of order", () => {
    const batch = passAlone(effectsOf(1), existing, "queue");
    const moved = (from: number, to: number) => {
      const out = [...batch];
      out.splice(to, 0, ...out.splice(from, 1));
      return out;
    };
    const tables = batch.map((s) => getTableName(target(s)));
    const at = (table: string, last = false) => (last ? tables.lastIndexOf(table) : tables.indexOf(table));
    // The project's credit (raising queue_seq) before the queue row numbered by it.
    expect(() => phasesInListOrder(moved(at("projects", true), at("app_credit_queue")))).toThrow(/app_credit_queue/);
    // The KV marks first: the batch's first statement then has no phase left.
    expect(() => phasesInListOrder(moved(at("kv_marks"), 0))).toThrow(new RegExp(`statement 1 writes ${tables[0]}`));
    // A host_app_version's change after the holders' credit.
    expect(() => phasesInListOrder(moved(at("host_app_versions"), at("app_credit_queue")))).toThrow(/host_app_versions/);
  });
});
