/**
 * The pure engine alone, replayed over every shared trace with the in-memory ledger (the
 * TypeScript twins of every SQL update): the same numbers as the traces' .expected.json, to
 * 1e-9. When the HTTP parity test fails and this passes, look at src/db, not src/credit.
 */
import { describe, expect, it } from "vitest";
import { replayEngine } from "../support/engine-replay";
import { BOINC_TRACE_ROWS, FAIR_TRACE_ROWS } from "../support/trace-fixtures";
import { foldAnonymousId, relativeError } from "../support/trace";

describe.each(BOINC_TRACE_ROWS)("trace %s through the pure engine", (_name, text, expected) => {
  it("gives every expected number to 1e-9 relative", () => {
    const { ledger, granted, credit } = replayEngine(text);

    const mismatches: string[] = [];
    const check = (what: string, actual: number | undefined, want: number) => {
      if (actual === undefined || !(relativeError(actual, want) <= 1e-9)) mismatches.push(`${what}: ${actual} ≠ ${want}`);
    };
    for (const r of expected.results) check(`result ${r.id}`, granted.get(r.id), r.granted_credit);
    for (const w of expected.workunits) check(`workunit ${w.id}`, credit.get(w.id), w.credit);
    for (const a of expected.apps) check(`app ${a.name}`, ledger.apps.get(a.name)?.minAvgPfc, a.min_avg_pfc);
    for (const v of expected.app_versions) {
      const got = ledger.versions.get(v.id);
      check(`av ${v.id} pfc_n`, got?.pfc.n, v.pfc_n);
      check(`av ${v.id} pfc_avg`, got?.pfc.avg, v.pfc_avg);
      check(`av ${v.id} pfc_scale`, got?.pfcScale, v.pfc_scale);
      check(`av ${v.id} expavg_credit`, got?.rac.expavgCredit, v.expavg_credit);
      check(`av ${v.id} expavg_time`, got?.rac.expavgTime, v.expavg_time);
    }
    const havs = new Map(
      [...ledger.hostAppVersions].map(([key, stats]) => {
        const [host, app, av] = key.split("/").map(Number) as [number, number, number];
        return [`${host}/${foldAnonymousId(app, av)}`, stats] as const;
      }),
    );
    expect(havs.size).toBe(expected.host_app_versions.length);
    for (const h of expected.host_app_versions) {
      const got = havs.get(`${h.host_id}/${h.app_version_id}`);
      const k = `hav ${h.host_id}/${h.app_version_id}`;
      check(`${k} pfc_n`, got?.pfc.n, h.pfc_n);
      check(`${k} pfc_avg`, got?.pfc.avg, h.pfc_avg);
      check(`${k} et_n`, got?.et.n, h.et_n);
      check(`${k} et_avg`, got?.et.avg, h.et_avg);
      check(`${k} et_var`, got?.et.var, h.et_var);
      check(`${k} turnaround_n`, got?.turnaround.n, h.turnaround_n);
      check(`${k} turnaround_avg`, got?.turnaround.avg, h.turnaround_avg);
      check(`${k} consecutive_valid`, got?.consecutiveValid, h.consecutive_valid);
    }
    for (const [kind, table] of [
      ["hosts", ledger.hosts],
      ["users", ledger.users],
      ["teams", ledger.teams],
    ] as const) {
      expect(table.size).toBe(expected[kind].length);
      for (const e of expected[kind]) {
        const got = table.get(e.id);
        check(`${kind} ${e.id} total_credit`, got?.totalCredit, e.total_credit);
        check(`${kind} ${e.id} expavg_credit`, got?.rac.expavgCredit, e.expavg_credit);
        check(`${kind} ${e.id} expavg_time`, got?.rac.expavgTime, e.expavg_time);
      }
    }
    expect(mismatches.slice(0, 20)).toEqual([]);
  });
});

// The reference model: the fair policy's, whose output the fair traces hold (test/fixtures/traces/README.md#fair-policy-traces).
describe.each(FAIR_TRACE_ROWS)("fair trace %s through the pure engine", (_name, text, expected) => {
  it("grants the reference model's numbers to 1e-9 relative", () => {
    const { granted, credit } = replayEngine(text);
    const mismatches: string[] = [];
    const check = (what: string, actual: number | undefined, want: number) => {
      if (actual === undefined || !(relativeError(actual, want) <= 1e-9)) mismatches.push(`${what}: ${actual} ≠ ${want}`);
    };
    for (const r of expected.results) check(`result ${r.id}`, granted.get(r.id), r.granted_credit);
    for (const w of expected.workunits) check(`workunit ${w.id}`, credit.get(w.id), w.credit);
    expect(mismatches.slice(0, 20)).toEqual([]);
    expect(granted.size).toBe(expected.results.length);
  });
});
