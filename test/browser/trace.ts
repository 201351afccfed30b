/**
 * A small trace posted over HTTP to a running Worker: a project, two apps' versions, a team
 * with a hostile name, and passes on a few recent days (so the charts have bars).
 */
import { daysAgo } from "../support/days";
import { send } from "../support/send";

export const EVIL_TEAM = "<script>alert(1)</script>";

function pass(now: number, firstWu: number, who: { host: number; user: number; team: number }, count: number) {
  const result = (id: number, elapsed: number, appVersion: number) => ({
    id,
    host_id: who.host,
    user_id: who.user,
    team_id: who.team,
    app_version_id: appVersion,
    elapsed_time: elapsed,
    cpu_time: elapsed * 0.9,
    flops_estimate: 3e9,
    sent_time: now - 5000,
    received_time: now - 1000,
    validate_state: "valid" as const,
  });
  return {
    now,
    workunits: Array.from({ length: count }, (_, i) => {
      const wu = firstWu + i;
      const version = wu % 2 === 0 ? 1 : 2;
      return {
        id: wu,
        app: "gw_search",
        rsc_fpops_est: 3e12,
        rsc_fpops_bound: 3e13,
        target_nresults: 2,
        results: [result(wu * 10 + 1, 1000, version), result(wu * 10 + 2, 1200, version)],
      };
    }),
  };
}

/** Posts the trace; returns the project's slug. */
export async function postTrace(base: string, adminToken: string): Promise<string> {
  const slug = "demo";
  const created = await send(base, "POST", "/v1/projects", adminToken, { slug, name: "Demo@Home", url: "https://demo.example.org" });
  const { token } = created;
  const p = `/v1/projects/${slug}`;
  await send(base, "PUT", `${p}/apps/gw_search`, token, {});
  await send(base, "PUT", `${p}/app-versions/1`, token, {
    app: "gw_search",
    platform: "x86_64-pc-linux-gnu",
    plan_class: "",
    version_num: 106,
  });
  await send(base, "PUT", `${p}/app-versions/2`, token, {
    app: "gw_search",
    platform: "x86_64-pc-linux-gnu",
    plan_class: "avx2",
    version_num: 106,
  });
  await send(base, "PUT", `${p}/teams/3`, token, { name: EVIL_TEAM });
  await send(base, "PUT", `${p}/users/7`, token, { name: "Ada", team_id: 3 });
  await send(base, "PUT", `${p}/hosts/10`, token, { name: "lab-pc", user_id: 7 });
  const ada = { host: 10, user: 7, team: 3 };
  await send(base, "POST", `${p}/passes`, token, pass(daysAgo(20), 100, ada, 3));
  await send(base, "POST", `${p}/passes`, token, pass(daysAgo(6), 200, ada, 5));
  await send(base, "POST", `${p}/passes`, token, pass(daysAgo(2), 300, ada, 2));
  await send(base, "POST", `${p}/passes`, token, pass(daysAgo(2), 400, { host: 11, user: 8, team: 0 }, 4));
  return slug;
}

/** Projects whose data spans one day, ten days and a year: the first credit's age in days, and the days with passes. */
export const SPANS = {
  "span-one": [0],
  "span-ten": [10, 4, 1],
  "span-year": [364, 200, 60, 1],
} as const;

/**
 * A project per span (host 10, user 7): one pass of two workunits on each listed day (days ago;
 * 0 is today at 01:00). Returns the slugs.
 */
export async function postSpans(base: string, adminToken: string): Promise<string[]> {
  for (const [slug, days] of Object.entries(SPANS)) {
    const { token } = await send(base, "POST", "/v1/projects", adminToken, { slug, name: slug });
    const p = `/v1/projects/${slug}` as const;
    await send(base, "PUT", `${p}/apps/gw_search`, token, {});
    for (const id of [1, 2]) {
      await send(base, "PUT", `${p}/app-versions/${id}`, token, {
        app: "gw_search",
        platform: "x86_64-pc-linux-gnu",
        plan_class: id === 1 ? "" : "avx2",
        version_num: 106,
      });
    }
    for (const [i, ago] of days.entries()) {
      const at = daysAgo(ago);
      await send(base, "POST", `${p}/passes`, token, pass(at, 100 * (i + 1), { host: 10, user: 7, team: 0 }, 2));
    }
  }
  return Object.keys(SPANS);
}
