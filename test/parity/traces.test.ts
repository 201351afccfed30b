/**
 * Parity: every shared trace replayed through the HTTP API (each op becomes the API call the
 * traces' README names) must leave exactly the numbers of its .expected.json, to 1e-9
 * relative: granted credits, app and app-version statistics, host_app_versions, and the
 * totals and RAC of hosts, users and teams.
 */
import { describe, expect, it } from "vitest";
import edge from "../fixtures/traces/edge.jsonl?raw";
import edgeExpected from "../fixtures/traces/edge.expected.json";
import extreme21 from "../fixtures/traces/extreme-21.jsonl?raw";
import extreme21Expected from "../fixtures/traces/extreme-21.expected.json";
import small11 from "../fixtures/traces/small-11.jsonl?raw";
import small11Expected from "../fixtures/traces/small-11.expected.json";
import small12 from "../fixtures/traces/small-12.jsonl?raw";
import small12Expected from "../fixtures/traces/small-12.expected.json";
import { createProject, projectClient } from "../support/api";
import { type TraceExpected, foldAnonymousId, parseTrace, relativeError } from "../support/trace";

const TOLERANCE = 1e-9;

const traces: [string, string, TraceExpected][] = [
  ["edge", edge, edgeExpected as TraceExpected],
  ["small-11", small11, small11Expected as TraceExpected],
  ["small-12", small12, small12Expected as TraceExpected],
  ["extreme-21", extreme21, extreme21Expected as TraceExpected],
];

/** Result ids for trace error ops, which carry none: far above any id the traces use. */
const ERROR_RESULT_IDS_FROM = 900_000_000;

async function replay(text: string) {
  const { slug, token } = await createProject("trace");
  const api = projectClient(slug, token);
  const granted = new Map<number, number>();
  const credit = new Map<number, number>();
  const appNumbers = new Map<string, number>();
  let errorIds = ERROR_RESULT_IDS_FROM;
  for (const op of parseTrace(text)) {
    switch (op.op) {
      case "app":
        await api.ok("PUT", `/apps/${op.name}`, {
          host_scale_check: op.host_scale_check,
          ...(op.target_nresults === undefined ? {} : { target_nresults: op.target_nresults }),
          ...(op.min_avg_pfc === undefined ? {} : { min_avg_pfc: op.min_avg_pfc }),
        });
        if (!appNumbers.has(op.name)) appNumbers.set(op.name, appNumbers.size + 1);
        break;
      case "app_version":
        await api.ok("PUT", `/app-versions/${op.id}`, {
          app: op.app,
          platform: op.platform,
          plan_class: op.plan_class,
          version_num: op.version_num,
        });
        break;
      case "pass": {
        const res = await api.ok("POST", "/passes", { now: op.now, workunits: op.workunits });
        for (const w of res.workunits) {
          credit.set(w.id, w.credit);
          for (const r of w.results) granted.set(r.id, r.granted_credit);
        }
        break;
      }
      case "rescale":
        await api.ok("POST", "/rescale", { now: op.now });
        break;
      case "error":
        await api.ok("POST", "/errors", {
          now: op.now,
          results: [
            {
              id: ++errorIds,
              host_id: op.host_id,
              app_version_id: op.app_version_id,
              ...(op.app === undefined ? {} : { app: op.app }),
              outcome: op.kind === "timeout" ? "timeout" : "error",
              ...(op.delay_bound === undefined ? {} : { delay_bound: op.delay_bound }),
            },
          ],
        });
        break;
      case "send":
        // BOINC's scheduler sending a job: Cobblestone creates the host_app_version at validation.
        break;
    }
  }
  return { api, granted, credit, appNumbers };
}

describe.each(traces)("trace %s replayed through the API", (_name, text, expected) => {
  it("matches every expected number to 1e-9 relative", { timeout: 300_000 }, async () => {
    const { api, granted, credit, appNumbers } = await replay(text);
    const mismatches: string[] = [];
    const check = (what: string, actual: number | undefined, want: number) => {
      if (actual === undefined || !(relativeError(actual, want) <= TOLERANCE)) {
        mismatches.push(`${what}: got ${actual}, expected ${want}`);
      }
    };

    for (const r of expected.results) check(`result ${r.id} granted_credit`, granted.get(r.id), r.granted_credit);
    for (const w of expected.workunits) check(`workunit ${w.id} credit`, credit.get(w.id), w.credit);

    const { apps } = await api.ok("GET", "/apps");
    for (const a of expected.apps) {
      check(`app ${a.name} min_avg_pfc`, apps.find((x: any) => x.name === a.name)?.min_avg_pfc, a.min_avg_pfc);
    }

    const { app_versions } = await api.ok("GET", "/app-versions");
    for (const v of expected.app_versions) {
      const got = app_versions.find((x: any) => x.id === v.id);
      for (const f of ["pfc_n", "pfc_avg", "pfc_scale", "expavg_credit", "expavg_time"] as const) {
        check(`app_version ${v.id} ${f}`, got?.[f], v[f]);
      }
    }

    const hostIds = [...new Set(expected.host_app_versions.map((h) => h.host_id))];
    const rows = new Map<string, any>();
    for (const hostId of hostIds) {
      const { host_app_versions } = await api.ok("GET", `/host-app-versions?host_id=${hostId}`);
      for (const h of host_app_versions) {
        rows.set(`${h.host_id}/${foldAnonymousId(appNumbers.get(h.app)!, h.app_version_id)}`, h);
      }
    }
    expect(rows.size).toBe(expected.host_app_versions.length);
    for (const h of expected.host_app_versions) {
      const got = rows.get(`${h.host_id}/${h.app_version_id}`);
      for (const f of [
        "pfc_n",
        "pfc_avg",
        "et_n",
        "et_avg",
        "et_var",
        "turnaround_n",
        "turnaround_avg",
        "consecutive_valid",
      ] as const) {
        check(`host_app_version ${h.host_id}/${h.app_version_id} ${f}`, got?.[f], h[f]);
      }
    }

    for (const kind of ["hosts", "users", "teams"] as const) {
      for (const e of expected[kind]) {
        const got = await api.ok("GET", `/${kind}/${e.id}`);
        for (const f of ["total_credit", "expavg_credit", "expavg_time"] as const) {
          check(`${kind} ${e.id} ${f}`, got[f], e[f]);
        }
      }
    }

    expect(mismatches.slice(0, 20)).toEqual([]);
    // Guard against a vacuous pass: the trace really credited results.
    expect(granted.size).toBeGreaterThanOrEqual(expected.results.length);
  });
});
