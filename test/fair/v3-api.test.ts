/**
 * Fair policy version 3 through the API (docs/spec/fair-policy.md#r31, #r32, #founders,
 * #re-base), with numbers worked out by hand: the anchor, the seal, a founder and a newcomer,
 * the alarm (JSON, page, cron log), the re-base (audit log with its reason) and the next anchor.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expectRel } from "../credit/close";
import { type ResultBody, expectError, result, setupProject, workunit } from "../support/api-helpers";
import { rawRequest, request } from "../support/api";
import { runCron } from "../support/cron";
import { captureLogs } from "../support/logs";
import { getPage, section } from "../web/html";
import { projectIdOf } from "../support/project-id";

const COBBLESTONE = 200 / 86400e9;
const T = 6000;

/** One workunit of app "a" (est 3e12) with one result of host `hostId` on version 1 claiming r = 2 (6e9 FLOPS × 1000 s / 3e12). */
const job = (wuId: number, hostId: number): ReturnType<typeof workunit> =>
  workunit(wuId, [result(wuId * 10 + 1, { host_id: hostId, user_id: hostId, flops_estimate: 6e9 } as Partial<ResultBody>)], {
    target_nresults: 1,
  });

describe("version 3: anchor, seal, founders, alarm and re-base", () => {
  it("anchors at 1,000 samples, holds S within 3%, keeps newcomers out, and re-bases on the project's word", async () => {
    const { api, slug, token } = await setupProject("fairv3");
    await api.ok("PUT", "/apps/a", { credit_policy: "fair" });
    const id = await projectIdOf(slug);
    // Version 1's hosts have given it 1,000 level samples at L = 2 (as a long history would).
    await env.DB.prepare("UPDATE app_versions SET fair_n = 1000, fair_level = 2 WHERE project_id = ? AND id = 1").bind(id).run();
    const version1 = async () => (await api.ok("GET", "/app-versions")).app_versions.find((v) => v.id === 1)!;
    const appA = async () => (await api.ok("GET", "/apps")).apps.find((a) => a.name === "a")!;
    const founder = async (hostId: number) =>
      (await api.ok("GET", `/host-app-versions?host_id=${hostId}`)).host_app_versions[0]!.fair_founder;

    // Host 8's row is made before the seal: a founder. Young, it is paid E; with no rescale yet the
    // version has only its seed scale (1): E = est × L × 1 = 6e12. Its sample, ln 2, is the level's own: L stays 2, n 1001.
    let answer = await api.ok("POST", "/passes", { now: T, workunits: [job(1, 8)] });
    expectRel(answer.workunits[0]!.credit, 6e12 * COBBLESTONE);
    expect([(await version1()).fair_n, (await version1()).fair_sealed]).toEqual([1001, false]);

    // The rescale: one mature CPU version, S = L = 2, 1,001 samples ≥ 1,000: S_ref = 2, version 1 sealed with its own scale 1.
    const first = await api.ok("POST", "/rescale", { now: T + 600 });
    expect(first.apps.find((a) => a.name === "a")!.fair).toEqual({
      level: 2,
      raw_level: 2,
      anchor: 2,
      anchored_now: true,
      held_at_anchor_limit: false,
    });
    expect(await appA()).toMatchObject({ fair_level: 2, fair_s_ref: 2, fair_anchored_at: T + 600, fair_held_at_anchor_limit: false });
    expect(await version1()).toMatchObject({ fair_sealed: true, fair_own_scale: true, fair_scale: 1 });

    // Host 7 is new after the seal: not a founder. Both young: paid E = est × S = 6e12. Only host 8 feeds the level: n 1002.
    answer = await api.ok("POST", "/passes", { now: T + 700, workunits: [job(2, 7), job(3, 8)] });
    for (const w of answer.workunits) expectRel(w.credit, 6e12 * COBBLESTONE);
    const fairOf = (wu: number) => answer.workunits.find((w) => w.id === wu)!.results[0]!.explain!.fair!;
    expect(fairOf(2)).toMatchObject({
      rule: "young_host",
      founder: false,
      version_sealed: true,
      held_out_by_seal: true,
      app_level: 2,
      app_anchor: 2,
    });
    expect(fairOf(3)).toMatchObject({ founder: true, version_sealed: true, held_out_by_seal: false, app_anchor: 2 });
    expect((await version1()).fair_n).toBe(1002);
    expect([await founder(7), await founder(8)]).toEqual([false, true]);

    // The founders' level moves to 2.5 (a slower build): S_raw = 2.5, S held at 2 × 1.03 = 2.06; version 1's scale 2.06 / 2.5.
    await env.DB.prepare("UPDATE app_versions SET fair_level = 2.5 WHERE project_id = ? AND id = 1").bind(id).run();
    const held = await api.ok("POST", "/rescale", { now: T + 1200 });
    expect(held.apps.find((a) => a.name === "a")!.fair).toMatchObject({ raw_level: 2.5, anchor: 2, held_at_anchor_limit: true });
    const alarmed = await appA();
    expectRel(alarmed.fair_level!, 2.06);
    expect(alarmed).toMatchObject({ fair_s_raw: 2.5, fair_s_ref: 2, fair_held_at_anchor_limit: true });
    expectRel((await version1()).fair_scale!, 2.06 / 2.5);
    // The project page says so, once the minute's KV refresh has published it.
    await runCron();
    const apps = section((await getPage(`/p/${slug}`)).html, "apps");
    expect(apps).toContain("held at its limit: S_raw 2.5 (1.25 × S_ref)");

    // The cron's rescale logs the alarm, naming project and app, with S, S_raw and S_ref: a JSON
    // line (docs/operations.md#logs) whose message is the operator's text.
    const { lines } = await captureLogs(() => runCron("*/10 * * * *", (T + 1800) * 1000));
    const alarms = lines.filter((l) => l.event === "fair_alarm" && String(l.message).startsWith(`fair alarm: project ${id} app "a"`));
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ level: "warn", console: "warn", project_id: id, app: "a", s_raw: 2.5, s_ref: 2 });
    expectRel(alarms[0]!.s as number, 2.06);
    expect(alarms[0]!.message).toContain("S_raw 2.5 = 1.2500 × S_ref 2");

    // A young newcomer is paid against the held S: est × 2.06 = 6.18e12.
    answer = await api.ok("POST", "/passes", { now: T + 1900, workunits: [job(4, 9)] });
    expectRel(answer.workunits[0]!.credit, 6.18e12 * COBBLESTONE);

    // The re-base: refused without a reason, and for an unknown app, changing nothing.
    const path = `/v1/projects/${slug}/apps/a/fair-rebase` as const;
    expectError(await rawRequest("POST", path, { token, body: {} }), 400);
    expectError(await request("POST", `/v1/projects/${slug}/apps/nope/fair-rebase`, { token, body: { reason: "a reason" } }), 404);
    expect(await appA()).toMatchObject({ fair_s_ref: 2, fair_rebased_at: null });
    expectError(await request("POST", path, { body: { reason: "no token" } }), 401);

    const rebased = await api.ok("POST", "/apps/a/fair-rebase", { reason: "build 7.2 is 25% slower" });
    // Version 1 unsealed; hosts 7 and 9 (made after the seal) become founders.
    expect(rebased).toMatchObject({ versions_unsealed: 1, rows_made_founders: 2, app: { fair_s_ref: null } });
    expect(rebased.app.fair_rebased_at).toBeGreaterThan(0);
    expect([await founder(7), await founder(9)]).toEqual([true, true]);
    expect((await version1()).fair_sealed).toBe(false);
    const audit = await api.ok("GET", "/audit");
    expect(audit.entries.find((e) => e.route.endsWith("/fair-rebase"))).toMatchObject({
      method: "POST",
      status: 200,
      reason: "build 7.2 is 25% slower",
    });

    // The next rescale anchors again, at the founders' level now: S_ref = S = 2.5, sealed.
    const again = await api.ok("POST", "/rescale", { now: T + 2400 });
    expect(again.apps.find((a) => a.name === "a")!.fair).toEqual({
      level: 2.5,
      raw_level: 2.5,
      anchor: 2.5,
      anchored_now: true,
      held_at_anchor_limit: false,
    });
    expect(await appA()).toMatchObject({ fair_s_ref: 2.5, fair_anchored_at: T + 2400, fair_held_at_anchor_limit: false });
    // A newcomer is paid est × 2.5 = 7.5e12, and is not a founder of the version sealed again.
    answer = await api.ok("POST", "/passes", { now: T + 2500, workunits: [job(5, 11)] });
    expectRel(answer.workunits[0]!.credit, 7.5e12 * COBBLESTONE);
    expect(await founder(11)).toBe(false);
  });
});
