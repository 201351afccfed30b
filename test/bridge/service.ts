/** The service side of the bridge tests: projects on a running `wrangler dev`, and its numbers against a trace's. */
import { foldAnonymousId, relativeError, type TraceExpected } from "./trace-types";
import type { components } from "../support/api-types";
import { send } from "../support/send";

export const TOLERANCE = 1e-9;

export async function createProject(base: string, adminToken: string, slug: string): Promise<string> {
  const created = await send(base, "POST", "/v1/projects", adminToken, { slug, name: slug });
  return created.token;
}

/**
 * Every number of a trace's expected output that the API reads back (app versions,
 * host_app_versions, hosts, users, teams), as a list of mismatches: empty when all agree to 1e-9.
 */
export async function traceMismatches(
  base: string,
  slug: string,
  token: string,
  expected: TraceExpected,
  appNumbers: Map<string, number>,
): Promise<string[]> {
  const get = <P extends string>(path: P) => send(base, "GET", `/v1/projects/${slug}${path}`, token);
  const mismatches: string[] = [];
  const check = (what: string, actual: number | undefined, want: number) => {
    if (actual === undefined || !(relativeError(actual, want) <= TOLERANCE)) mismatches.push(`${what}: got ${actual}, expected ${want}`);
  };
  const { apps } = await get("/apps");
  for (const a of expected.apps) check(`app ${a.name} min_avg_pfc`, apps.find((x) => x.name === a.name)?.min_avg_pfc, a.min_avg_pfc);
  const { app_versions } = await get("/app-versions");
  for (const v of expected.app_versions) {
    const got = app_versions.find((x) => x.id === v.id);
    for (const f of ["pfc_n", "pfc_avg", "pfc_scale", "expavg_credit", "expavg_time"] as const)
      check(`app_version ${v.id} ${f}`, got?.[f], v[f]);
  }
  const rows = new Map<string, components["schemas"]["HostAppVersion"]>();
  for (const hostId of new Set(expected.host_app_versions.map((h) => h.host_id))) {
    const { host_app_versions } = await get(`/host-app-versions?host_id=${hostId}`);
    for (const h of host_app_versions) rows.set(`${h.host_id}/${foldAnonymousId(appNumbers.get(h.app)!, h.app_version_id)}`, h);
  }
  if (rows.size !== expected.host_app_versions.length)
    mismatches.push(`${rows.size} host_app_versions, expected ${expected.host_app_versions.length}`);
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
