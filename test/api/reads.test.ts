/** The project's own state, read back with BOINC's field names (issue 2, item 6). */
import { runCron } from "../support/cron";
import { describe, expect, it } from "vitest";
import { CREDIT_HALF_LIFE } from "../../src/credit/constants";
import { pass, result, setupProject, workunit } from "../support/api-helpers";

describe("reading state back", () => {
  it("a new app starts with BOINC's defaults: min_avg_pfc 1, adaptive credit, the 1 TeraFLOP-year cap", async () => {
    const { api } = await setupProject();
    await api.ok("PUT", "/apps/fresh", {});
    const { apps } = await api.ok("GET", "/apps");
    expect(apps.find((a) => a.name === "fresh")).toMatchObject({
      min_avg_pfc: 1,
      credit_mode: "adaptive",
      max_granted_credit: 200 * 1000 * 365,
      host_scale_check: false,
      target_nresults: 0,
    });
  });

  it("a host reports BOINC's stored pair and the RAC decayed to as_of", async () => {
    const { api } = await setupProject();
    // Registered 10 days before the pass: its first grant takes the decay branch (docs/spec/edge-cases.md#e14).
    await api.ok("PUT", "/hosts/70", { create_time: 1000, user_id: 70 });
    await api.ok("POST", "/passes", { now: 1000 + 10 * 86400, workunits: [workunit(1, [result(11, { host_id: 70, user_id: 70 })])] });
    const host = await api.ok("GET", "/hosts/70");
    expect(host.expavg_time).toBe(1000 + 10 * 86400);
    // One result of 3e12 FLOPs = 6.944… credits spread over 10 days: (1 − 2^(−10/7)) × 6.944… / 10.
    const credit = (3e12 * 200) / 86400e9;
    expect(host.expavg_credit).toBeCloseTo(((1 - 2 ** (-10 / 7)) * credit) / 10, 12);
    const decay = Math.exp((-(host.as_of - host.expavg_time) * Math.LN2) / CREDIT_HALF_LIFE);
    expect(host.recent_average_credit).toBeCloseTo(host.expavg_credit * decay, 12);
    expect(host.recent_average_credit).toBeLessThan(host.expavg_credit);
    expect(host.user_id).toBe(70);
  });

  it("an anonymous-platform host_app_version is listed with its negative id and its app's name", async () => {
    const { api } = await setupProject();
    await api.ok("POST", "/passes", pass(workunit(2, [result(21, { host_id: 80, user_id: 80, app_version_id: -3 })], { app: "g" })));
    const { host_app_versions } = await api.ok("GET", "/host-app-versions?host_id=80");
    expect(host_app_versions).toEqual([
      expect.objectContaining({ host_id: 80, app_version_id: -3, app: "g", pfc_n: 1, pfc_avg: 1, consecutive_valid: 1 }),
    ]);
  });

  it("a result names its host's owner and the owner's team; the latest pass wins", async () => {
    const { api } = await setupProject();
    await api.ok("POST", "/passes", pass(workunit(3, [result(31, { host_id: 90, user_id: 91, team_id: 5 })])));
    await api.ok("POST", "/passes", pass(workunit(4, [result(41, { host_id: 90, user_id: 92, team_id: 6 })])));
    expect((await api.ok("GET", "/hosts/90")).user_id).toBe(92);
    expect((await api.ok("GET", "/users/92")).team_id).toBe(6);
    expect((await api.ok("GET", "/teams/5")).total_credit).toBeGreaterThan(0);
  });
});

describe("registering credit holders", () => {
  it("PUT /hosts/:id takes the contract's cpid and returns it as BOINC's host_cpid", async () => {
    const { api } = await setupProject();
    const host = await api.ok("PUT", "/hosts/71", { create_time: 5000, user_id: 3, cpid: "0123abcd0123abcd0123abcd0123abcd", name: "box" });
    expect(host).toMatchObject({
      id: 71,
      user_id: 3,
      host_cpid: "0123abcd0123abcd0123abcd0123abcd",
      name: "box",
      create_time: 5000,
      expavg_time: 5000,
    });
  });

  it("per-app credit rows (BOINC's credit_user) count jobs and credit; a new row's first grant adds credit·ln2/7", async () => {
    const { api, slug } = await setupProject();
    // Two workunits for user 72 (two hosts) in one pass, each 3e12 FLOPs = 6.944… credits.
    await api.ok(
      "POST",
      "/passes",
      pass(workunit(5, [result(51, { host_id: 72, user_id: 72 })]), workunit(6, [result(61, { host_id: 73, user_id: 72 })])),
    );
    // Per-app credit is folded by the hourly job (docs/storage.md).
    await runCron("50 * * * *");
    const { env } = await import("cloudflare:workers");
    const row = await env.DB.prepare(
      "SELECT c.njobs, c.total, c.expavg FROM credit_users c JOIN projects p ON p.id = c.project_id WHERE p.slug = ? AND c.user_id = 72",
    )
      .bind(slug)
      .first<{ njobs: number; total: number; expavg: number }>();
    const credit = (3e12 * 200) / 86400e9;
    expect(row!.njobs).toBe(2);
    expect(row!.total).toBeCloseTo(2 * credit, 12);
    // Inserted at now, both grants see a zero gap: (c + c) × ln2 / 7.
    expect(row!.expavg).toBeCloseTo((2 * credit * Math.LN2) / 7, 12);
  });
});
