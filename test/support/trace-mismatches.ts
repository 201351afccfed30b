/**
 * The numbers of a trace's expected output that the API reads back (apps' min_avg_pfc, app
 * versions, host_app_versions, hosts, users, teams) against what a project answers, as a list
 * of mismatches: empty when all agree to 1e-9 relative. One list of checks for the parity
 * replays inside workerd (test/parity) and the bridge's against `wrangler dev` (test/bridge).
 */
import type { SuccessBody, components } from "./api-types";
import { foldAnonymousId, relativeError, type TraceExpected } from "./trace";

export const TOLERANCE = 1e-9;

/** A GET of one project's path (`/apps`, `/hosts/7`, …), answered as the API documents it. */
export type ProjectGet = <P extends string>(path: P) => Promise<SuccessBody<"GET", `/v1/projects/${string}${P}`>>;

/** Adds `what` to `mismatches` unless `actual` is within TOLERANCE of `want`. */
export function mismatchCheck(mismatches: string[]) {
  return (what: string, actual: number | undefined, want: number) => {
    if (actual === undefined || !(relativeError(actual, want) <= TOLERANCE)) mismatches.push(`${what}: got ${actual}, expected ${want}`);
  };
}

/** `appNumbers`: each app's number in the trace, to fold anonymous platforms' version ids as the expected output does. */
export async function readBackMismatches(get: ProjectGet, expected: TraceExpected, appNumbers: Map<string, number>): Promise<string[]> {
  const mismatches: string[] = [];
  const check = mismatchCheck(mismatches);
  const { apps } = await get("/apps");
  for (const a of expected.apps) check(`app ${a.name} min_avg_pfc`, apps.find((x) => x.name === a.name)?.min_avg_pfc, a.min_avg_pfc);
  const { app_versions } = await get("/app-versions");
  for (const v of expected.app_versions) {
    const got = app_versions.find((x) => x.id === v.id);
    for (const f of ["pfc_n", "pfc_avg", "pfc_scale", "expavg_credit", "expavg_time"] as const) {
      check(`app_version ${v.id} ${f}`, got?.[f], v[f]);
    }
  }
  const rows = new Map<string, components["schemas"]["HostAppVersion"]>();
  for (const hostId of new Set(expected.host_app_versions.map((h) => h.host_id))) {
    const { host_app_versions } = await get(`/host-app-versions?host_id=${hostId}`);
    for (const h of host_app_versions) rows.set(`${h.host_id}/${foldAnonymousId(appNumbers.get(h.app)!, h.app_version_id)}`, h);
  }
  if (rows.size !== expected.host_app_versions.length) {
    mismatches.push(`${rows.size} host_app_versions, expected ${expected.host_app_versions.length}`);
  }
  for (const h of expected.host_app_versions) {
    const got = rows.get(`${h.host_id}/${h.app_version_id}`);
    for (const f of ["pfc_n", "pfc_avg", "et_n", "et_avg", "et_var", "turnaround_n", "turnaround_avg", "consecutive_valid"] as const) {
      check(`host_app_version ${h.host_id}/${h.app_version_id} ${f}`, got?.[f], h[f]);
    }
  }
  for (const kind of ["hosts", "users", "teams"] as const) {
    for (const e of expected[kind]) {
      const got = await get(`/${kind}/${e.id}`);
      for (const f of ["total_credit", "expavg_credit", "expavg_time"] as const) check(`${kind} ${e.id} ${f}`, got[f], e[f]);
    }
  }
  return mismatches;
}
