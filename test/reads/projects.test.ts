/** The public project list, one project's totals, and its apps and app versions from KV. */
import { describe, expect, it } from "vitest";
import { expectError, setupProject } from "../support/api-helpers";
import { request } from "../support/api";
import type { components } from "../support/api-types";
import { runCron } from "../support/cron";
import { daysAgo, decayed, passFor } from "./fixtures";

const creditOf = (res: components["schemas"]["PassResponse"]): number =>
  res.workunits.flatMap((w) => w.results).reduce((s, r) => s + r.granted_credit, 0);

describe("public project reads", () => {
  it("a project's totals: all credit granted, and a RAC kept like a user's", async () => {
    const { slug, api } = await setupProject("proj");
    const t = daysAgo(2);
    const credit =
      creditOf(await api.ok("POST", "/passes", passFor(t, 1, { host: 1, user: 1 }, 3))) +
      creditOf(await api.ok("POST", "/passes", passFor(t, 10, { host: 2, user: 2, team: 7 })));
    await runCron();
    const res = await request("GET", `/v1/projects/${slug}`);
    expect(res.status).toBe(200);
    expect(res.body.total_credit).toBeCloseTo(credit, 9);
    expect(res.body).toMatchObject({ slug, users: 2, hosts: 2, teams: 1 });
    // The project's RAC clock started at its creation, after t: every grant has a zero gap and
    // adds credit · ln2 / 7 (update_average's first-order form), so RAC = total · ln2 / 7.
    expect(res.body.expavg_credit).toBeCloseTo((credit * Math.LN2) / 7, 9);
    expect(res.body.expavg_time).toBe(t);
    expect(res.body.recent_average_credit).toBeCloseTo(decayed(res.body, res.body.as_of), 9);

    const list = await request("GET", "/v1/projects");
    const mine = list.body.projects.find((p) => p.slug === slug);
    expect(mine!.total_credit).toBe(res.body.total_credit);
    expect(mine).not.toHaveProperty("id");
    expect(res.body).not.toHaveProperty("id");
  });

  it("apps and app versions are public, refreshed by the cron after a pass changed them", async () => {
    const { slug, api } = await setupProject("proj");
    const before = await request("GET", `/v1/projects/${slug}/app-versions`);
    expect(before.body.app_versions.find((v) => v.id === 1)!.pfc_n).toBe(0);
    await api.ok("POST", "/passes", passFor(daysAgo(1), 1, { host: 1, user: 1 }));
    expect((await request("GET", `/v1/projects/${slug}/app-versions`)).body).toEqual(before.body);
    await runCron();
    const after = await request("GET", `/v1/projects/${slug}/app-versions`);
    expect(after.body).toEqual(await api.ok("GET", "/app-versions"));
    expect(after.body.app_versions.find((v) => v.id === 1)!.pfc_n).toBeGreaterThan(0);
    expect((await request("GET", `/v1/projects/${slug}/apps`)).body).toEqual(await api.ok("GET", "/apps"));
  });

  it("first_credit_time: null before any grant, then the earliest pass's now (a backfill's oldest history), not the creation", async () => {
    const { slug, api } = await setupProject("since");
    await runCron();
    const created = await request("GET", `/v1/projects/${slug}`);
    expect(created.body.first_credit_time).toBeNull();
    // A backfill: its passes' times are weeks before the project was created.
    const t = daysAgo(40);
    await api.ok("POST", "/passes", passFor(t, 1, { host: 1, user: 1 }));
    await api.ok("POST", "/passes", passFor(t + 3600, 2, { host: 1, user: 1 }));
    await runCron();
    const res = await request("GET", `/v1/projects/${slug}`);
    expect(res.body.first_credit_time).toBe(t);
    expect(res.body.create_time).toBeGreaterThan(t + 30 * 86400);
    // A pass posted later for an older second is granted at the project's clock (time never
    // runs backwards, SECURITY.md), so it does not move the first credit back; nor does a pass
    // that grants nothing.
    const late = await api.ok("POST", "/passes", passFor(t - 86400, 3, { host: 2, user: 2 }));
    expect(late.now).toBe(t + 3600);
    const pending = passFor(t - 2 * 86400, 4, { host: 2, user: 2 });
    for (const r of pending.workunits[0]!.results) r.validate_state = "inconclusive";
    await api.ok("POST", "/passes", pending);
    await runCron();
    expect((await request("GET", `/v1/projects/${slug}`)).body.first_credit_time).toBe(t);
    const listed = (await request("GET", "/v1/projects")).body.projects.find((p) => p.slug === slug);
    expect(listed!.first_credit_time).toBe(t);
  });

  it("an unknown project is 404", async () => {
    expectError(await request("GET", "/v1/projects/none-such"), 404, "not_found");
    expectError(await request("GET", "/v1/projects/none-such/apps"), 404, "not_found");
    expectError(await request("GET", "/v1/projects/none-such/history"), 404, "not_found");
  });
});
