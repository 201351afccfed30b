/**
 * The cross-project jobs with a project in a database of its own (wrangler.jsonc DB_LARGE)
 * next to one in the default database: the account-manager reconciliation and the plan-class
 * registry must see the large project's rows, which the default database does not hold.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { kvKeys } from "../../src/snapshots/keys";
import { dateOfDay, dayOf } from "../../src/credit/history";
import { formatCredit } from "../../src/web/format";
import { expectRel } from "../credit/close";
import { result, setupProject, workunit } from "../support/api-helpers";
import { HOUR, createAm, rpcBody, totals } from "../am/support";
import { PLAN_CLASS_CRON, WEEK, clockNow, runCron } from "../central/helpers";
import { daysAgo } from "../reads/fixtures";
import { request } from "../support/api";
import { firstData, getPage, section } from "../web/html";

const RECONCILE_CRON = "30 0 * * *";
const uniqueUrl = (name: string) => `https://${name}-${Math.random().toString(36).slice(2, 8)}.example/`;

/** A project in `database` (default: the default one) at `url`, app "a" in credit_mode "fixed". */
async function fixedCreditProject(prefix: string, url: string, database?: string) {
  const p = await setupProject(prefix, { url, ...(database ? { database } : {}) });
  await p.api.ok("PUT", "/apps/a", { credit_mode: "fixed" });
  return p;
}

/** One workunit worth `credit`, one valid result of host `hostId` (user 7). */
const granting = (id: number, hostId: number, credit: number) =>
  workunit(id, [result(id * 10, { host_id: hostId, user_id: 7 })], { canonical_credit: credit, target_nresults: 1 });

describe("account-manager reconciliation across databases", () => {
  it("confirms the credit a project in its own database granted, next to a project of the default database", async () => {
    // One account manager; its host 11 runs the large project (host 501 there), its host 12
    // the small one (host 601). On day T:
    //   large: estimated 400, granted 2 × 100 = 200 → factor 200 / 400 = 0.5, confirmed 200
    //   small: estimated 100, granted 1 × 100 = 100 → factor 1,              confirmed 100
    //   total: estimated 500, confirmed 300
    const largeUrl = uniqueUrl("large");
    const smallUrl = uniqueUrl("small");
    const large = await fixedCreditProject("am-large", largeUrl, "DB_LARGE");
    const small = await fixedCreditProject("am-small", smallUrl);
    const am = await createAm("xdb");
    await large.api.ok("PUT", "/hosts/501", { user_id: 7, account_manager: am.slug, am_host_id: 11 });
    await small.api.ok("PUT", "/hosts/601", { user_id: 7, account_manager: am.slug, am_host_id: 12 });

    const T = daysAgo(2);
    for (const [host, url, ec] of [
      [11, largeUrl, 400],
      [12, smallUrl, 100],
    ] as const) {
      await am.rpc(host, rpcBody(T, [totals(url)], { user_id: 70 }));
      await am.rpc(host, rpcBody(T + HOUR, [totals(url, { cpu_ec: ec })], { user_id: 70 }));
    }
    await large.api.ok("POST", "/passes", { now: T + 2 * HOUR, workunits: [granting(1, 501, 100), granting(2, 501, 100)] });
    await small.api.ok("POST", "/passes", { now: T + 2 * HOUR, workunits: [granting(1, 601, 100)] });

    await runCron(RECONCILE_CRON, (dayOf(T) + 1) * 86400 + 1800);

    const q = { end: dateOfDay(dayOf(T)), days: 1 };
    expect((await am.series("hosts/11", { ...q, url: largeUrl }))[0]).toMatchObject({
      ec: 400,
      factor: 0.5,
      window_granted: 200,
      window_estimated: 400,
      confirmed_ec: 200,
    });
    expect((await am.series("hosts/12", { ...q, url: smallUrl }))[0]).toMatchObject({
      ec: 100,
      factor: 1,
      window_granted: 100,
      window_estimated: 100,
      confirmed_ec: 100,
    });
    expect((await am.series("totals", q))[0]).toMatchObject({ ec: 500, confirmed_ec: 300 });

    // The large project's user page reads its hosts in its database and the account manager's
    // rows in the registry: estimated 400, confirmed 200.
    await runCron("* * * * *", clockNow());
    const page = await getPage(`/p/${large.slug}/users/7`);
    expect(page.status).toBe(200);
    const table = section(page.html, "am-credit");
    expect(table).toContain(`AM ${am.slug}`);
    expect(firstData(table, "estimated")).toEqual({ value: 400, text: formatCredit(400) });
    expect(firstData(table, "confirmed")).toEqual({ value: 200, text: formatCredit(200) });
    // Without its KV snapshot, the project's page loads it from the project's own database.
    await env.KV.delete(kvKeys.project(large.slug));
    const missed = await getPage(`/p/${large.slug}/users/7`);
    expect(missed.status).toBe(200);
    expect(firstData(section(missed.html, "am-credit"), "confirmed")).toEqual({ value: 200, text: formatCredit(200) });
  });
});

/**
 * A mixed app "mixed" (a CPU version 1 and a GPU version 2 of plan class `planClass`), 101
 * workunits of one result each per version, every result 1000 s. Per-sample PFC = 1000 s ×
 * FLOPS / 3e12: CPU 3e9 → 1.0, GPU `gpuFlops`. Rescale's target is the lower average, 1.0, so
 * the GPU version's pfc_scale is 1.0 / (1000 × gpuFlops / 3e12).
 */
async function mixedAppProject(prefix: string, planClass: string, gpuFlops: number, database?: string) {
  const p = await setupProject(prefix, database ? { database } : {});
  await p.api.ok("PUT", "/apps/mixed", {});
  await p.api.ok("PUT", "/app-versions/11", { app: "mixed", platform: "linux", plan_class: "", version_num: 1 });
  await p.api.ok("PUT", "/app-versions/12", { app: "mixed", platform: "linux", plan_class: planClass, version_num: 1 });
  const wus = Array.from({ length: 101 }, (_, i) =>
    workunit(
      100 + i,
      [
        result(1000 + 2 * i, { host_id: 20, user_id: 2, app_version_id: 11 }),
        result(1001 + 2 * i, { host_id: 21, user_id: 3, app_version_id: 12, flops_estimate: gpuFlops }),
      ],
      { app: "mixed" },
    ),
  );
  await p.api.ok("POST", "/passes", { now: clockNow(), workunits: wus });
  await p.api.ok("POST", "/rescale", {});
  const { app_versions } = await p.api.ok("GET", "/app-versions");
  return { ...p, gpu: app_versions.find((v) => v.id === 12) };
}

describe("the plan-class registry across databases", () => {
  it("aggregates the app versions of a project in its own database; that project pins and rescales from the registry", async () => {
    // GPU 6e9 FLOPS → PFC 2.0 → scale 1.0 / 2.0 = 0.5 (large);
    // GPU 12e9 FLOPS → PFC 4.0 → scale 1.0 / 4.0 = 0.25 (small).
    const large = await mixedAppProject("pc-large", "cuda_xdb", 6e9, "DB_LARGE");
    const small = await mixedAppProject("pc-small", "cuda_xdb", 12e9);
    expect(large.gpu!.pfc_scale).toBe(0.5);
    expect(small.gpu!.pfc_scale).toBe(0.25);

    const at = clockNow() + 3600;
    await runCron(PLAN_CLASS_CRON, at);
    const table = (await request("GET", "/v1/plan-classes")).body;
    expect(table.version).toBe(at);
    const row = table.plan_classes.find((r) => r.plan_class === "cuda_xdb");
    // Each version weighs its RAC decayed to the run (half-life a week). With two sources the
    // weight cap (10 × the lower one) does not bind while they are within a factor 10:
    // scale = (0.5·w_large + 0.25·w_small) / (w_large + w_small).
    const weight = (v: { expavg_credit: number; expavg_time: number }) => v.expavg_credit * 2 ** (-(at - v.expavg_time) / WEEK);
    const [wLarge, wSmall] = [weight(large.gpu!), weight(small.gpu!)];
    expect(Math.max(wLarge, wSmall) / Math.min(wLarge, wSmall)).toBeLessThan(10);
    expect(row).toMatchObject({ nprojects: 2, nversions: 2 });
    expectRel(row!.scale, (0.5 * wLarge + 0.25 * wSmall) / (wLarge + wSmall), 1e-9);
    expectRel(row!.recent_credit, wLarge + wSmall, 1e-9);

    // The large project pins that version (the registry is in the default database) and a
    // GPU-only app of its rescales from it: 101 samples of PFC 2.0 (6e9 FLOPS), factor =
    // the table's cuda_xdb scale, so min_avg_pfc = 2.0 × scale and pfc_scale = scale.
    await large.api.ok("PUT", "/apps/solo", { gpu_only_scale: "cross-project", cross_project_version: at });
    await large.api.ok("PUT", "/app-versions/21", { app: "solo", platform: "linux", plan_class: "cuda_xdb", version_num: 1 });
    const solo = Array.from({ length: 101 }, (_, i) =>
      workunit(5000 + i, [result(50_000 + i, { host_id: 30, user_id: 4, app_version_id: 21, flops_estimate: 6e9 })], { app: "solo" }),
    );
    await large.api.ok("POST", "/passes", { now: clockNow(), workunits: solo });
    const rescaled = (await large.api.ok("POST", "/rescale", {})).apps.find((a) => a.name === "solo");
    expect(rescaled!.cross_project).toMatchObject({ registry_version: at });
    expectRel(rescaled!.cross_project!.factor, row!.scale, 1e-12);
    expectRel(rescaled!.min_avg_pfc, 2.0 * row!.scale, 1e-9);
  });
});
