/**
 * gpu_only_scale "cross-project" in rescale, with hand-derived numbers.
 *
 * The registry (one contributor, app "mix", every RAC as of the run, so weights are the RACs):
 *   ""                 scale 1.0,  RAC 100
 *   "cuda_cp"          scale 0.25, RAC 300   → plan class cuda_cp: 0.25
 *   "opencl_nvidia_cp" scale 0.15, RAC 100   → plan class opencl_nvidia_cp: 0.15
 *   NVIDIA (both GPU versions): (0.25·300 + 0.15·100) / 400 = 90 / 400 = 0.225
 *   AMD: nothing.
 *
 * The local project has four GPU-only apps, one version each, 101 samples of 2.0
 * (1000 s × 6e9 FLOPS / 3e12 FLOPs), so each GPU average is 2.0:
 *   g_plan  cross-project, plan class cuda_cp     → factor 0.25 (plan class): min_avg_pfc 0.5,  pfc_scale 0.25
 *   g_type  cross-project, plan class cuda_other  → factor 0.225 (NVIDIA):    min_avg_pfc 0.45, pfc_scale 0.225
 *   g_none  cross-project, plan class ati_cp      → factor 0.1 (no AMD row):  min_avg_pfc 0.2,  pfc_scale 0.1
 *   g_boinc "boinc",       plan class cuda_cp     → BOINC's 0.1:              min_avg_pfc 0.2,  pfc_scale 0.1
 * (pfc_scale = min_avg_pfc / the version's pfc_avg 2.0.)
 */
import { describe, expect, it } from "vitest";
import { expectRel } from "../credit/close";
import { expectError, pass, result, workunit } from "../support/api-helpers";
import { createProject, typedClient } from "../support/api";
import type { components } from "../support/api-types";
import { PLAN_CLASS_CRON, clockNow, issueCentralToken, push, reported, runCron } from "./helpers";

interface GpuOnlyApp {
  readonly app: string;
  readonly version: number;
  readonly planClass: string;
  readonly setting: "boinc" | "cross-project";
}

const APPS: readonly GpuOnlyApp[] = [
  { app: "g_plan", version: 11, planClass: "cuda_cp", setting: "cross-project" },
  { app: "g_type", version: 12, planClass: "cuda_other", setting: "cross-project" },
  { app: "g_none", version: 13, planClass: "ati_cp", setting: "cross-project" },
  { app: "g_boinc", version: 14, planClass: "cuda_cp", setting: "boinc" },
];

/** A project whose apps have one GPU version each, with 101 samples of 2.0. */
async function gpuOnlyProject(apps: readonly GpuOnlyApp[] = APPS) {
  const { slug, token } = await createProject("gpu-only");
  const api = typedClient(slug, token);
  for (const a of apps) {
    const stored = await api.ok("PUT", `/apps/${a.app}`, { gpu_only_scale: a.setting });
    expect(stored.gpu_only_scale).toBe(a.setting);
    await api.ok("PUT", `/app-versions/${a.version}`, { app: a.app, platform: "windows_x86_64", plan_class: a.planClass, version_num: 1 });
  }
  const wus = apps.flatMap((a, k) =>
    Array.from({ length: 101 }, (_, i) =>
      workunit(
        10_000 * (k + 1) + i,
        [result(100_000 * (k + 1) + i, { host_id: 50 + (i % 7), user_id: 5, app_version_id: a.version, flops_estimate: 6e9 })],
        { app: a.app },
      ),
    ),
  );
  await api.ok("POST", "/passes", { ...pass(...wus), now: clockNow() });
  return api;
}

const appOf = (res: components["schemas"]["RescaleResponse"], name: string) => res.apps.find((a) => a.name === name);

describe('gpu_only_scale "cross-project"', () => {
  it("PUT apps takes it; anything else is 400", async () => {
    const { slug, token } = await createProject("setting");
    const api = typedClient(slug, token);
    expect((await api.ok("PUT", "/apps/x", {})).gpu_only_scale).toBe("boinc");
    expect((await api.ok("PUT", "/apps/x", { gpu_only_scale: "cross-project" })).gpu_only_scale).toBe("cross-project");
    expect((await api.ok("PUT", "/apps/x", {})).gpu_only_scale).toBe("cross-project");
    expectError(await api.untyped("PUT", "/apps/x", { gpu_only_scale: "central" }), 400, "validation_failed");
  });

  it("uses the registry's factor for the plan class, then the processor type, then 0.1; 'boinc' keeps BOINC's numbers", async () => {
    const api = await gpuOnlyProject();

    // Before any table is published, cross-project falls back to BOINC's 0.1 everywhere.
    const early = await api.ok("POST", "/rescale", {});
    expect(appOf(early, "g_plan")).toMatchObject({ basis: "gpu_only", min_avg_pfc: 0.2 });
    expect(appOf(early, "g_plan")!.cross_project).toMatchObject({ factor: 0.1, registry_version: null });

    const T = clockNow();
    const { token } = await issueCentralToken("elsewhere");
    const pushed = await push(
      token,
      JSON.stringify({
        app_versions: [
          reported(1, "mix", "", { pfc_scale: 1.0, expavg_credit: 100, expavg_time: T }),
          reported(2, "mix", "cuda_cp", { pfc_scale: 0.25, expavg_credit: 300, expavg_time: T }),
          reported(3, "mix", "opencl_nvidia_cp", { pfc_scale: 0.15, expavg_credit: 100, expavg_time: T }),
        ],
      }),
    );
    expect(pushed.status).toBe(200);
    await runCron(PLAN_CLASS_CRON, T);

    const res = await api.ok("POST", "/rescale", {});
    const plan = appOf(res, "g_plan");
    expect(plan).toMatchObject({ basis: "gpu_only", min_avg_pfc: 0.5, scaled_versions: [{ id: 11, pfc_scale: 0.25 }] });
    expect(plan!.cross_project).toEqual({
      factor: 0.25,
      registry_version: T,
      plan_classes: [{ plan_class: "cuda_cp", factor: 0.25, source: "plan_class" }],
    });

    const type = appOf(res, "g_type");
    expectRel(type!.min_avg_pfc, 0.45);
    expectRel(type!.scaled_versions[0]!.pfc_scale, 0.225);
    expect(type!.cross_project!.plan_classes).toMatchObject([{ plan_class: "cuda_other", source: "proc_type" }]);

    const none = appOf(res, "g_none");
    expect(none).toMatchObject({ min_avg_pfc: 0.2, scaled_versions: [{ id: 13, pfc_scale: 0.1 }] });
    expect(none!.cross_project!.plan_classes).toEqual([{ plan_class: "ati_cp", factor: 0.1, source: "boinc_default" }]);

    const boinc = appOf(res, "g_boinc");
    expect(boinc).toMatchObject({ basis: "gpu_only", min_avg_pfc: 0.2, scaled_versions: [{ id: 14, pfc_scale: 0.1 }] });
    expect(boinc!.cross_project).toBeUndefined();

    // And the stored state says the same.
    const { apps } = await api.ok("GET", "/apps");
    expect(apps.find((a) => a.name === "g_plan")!.min_avg_pfc).toBe(0.5);
    expect(apps.find((a) => a.name === "g_boinc")!.min_avg_pfc).toBe(0.2);

    // The credit follows: host 50 has 15 samples of 2.0 per version, so its host scale is
    // 2.0 / 2.0 = 1 (NORMAL mode). A job of raw PFC 1000 s × 6e9 = 6e12 claims
    // 6e12 × 0.25 = 1.5e12 FLOPs under g_plan and 6e12 × 0.1 = 6e11 under g_boinc:
    // 1.5e12 × 200 / 86400e9 = 3.4722… credits against 1.3888….
    const credit = await api.ok("POST", "/passes", {
      ...pass(
        workunit(900_001, [result(900_001, { host_id: 50, user_id: 5, app_version_id: 11, flops_estimate: 6e9 })], { app: "g_plan" }),
        workunit(900_002, [result(900_002, { host_id: 50, user_id: 5, app_version_id: 14, flops_estimate: 6e9 })], { app: "g_boinc" }),
      ),
      now: clockNow(),
    });
    const [crossProject, boincCredit] = credit.workunits.map((w) => w.results[0]);
    expect(crossProject!.pfc_mode).toBe("normal");
    expectRel(crossProject!.granted_credit, (1.5e12 * 200) / 86400e9, 1e-12);
    expectRel(boincCredit!.granted_credit, (6e11 * 200) / 86400e9, 1e-12);
  });

  it("an app may pin a table version; unpinned, it reads the latest", async () => {
    const api = await gpuOnlyProject([{ app: "g_pin", version: 21, planClass: "cuda_pin", setting: "cross-project" }]);
    const { token } = await issueCentralToken("pinning");
    const publish = async (cudaScale: number, at: number) => {
      const body = {
        app_versions: [
          reported(1, "mix", "", { expavg_time: at }),
          reported(2, "mix", "cuda_pin", { pfc_scale: cudaScale, expavg_time: at }),
        ],
      };
      expect((await push(token, JSON.stringify(body))).status).toBe(200);
      await runCron(PLAN_CLASS_CRON, at);
    };
    const T1 = clockNow();
    await publish(0.25, T1);
    await publish(0.5, T1 + 60);

    expectError(await api.raw("PUT", "/apps/g_pin", { cross_project_version: 12345 }), 422, "unknown_version");
    expect((await api.ok("PUT", "/apps/g_pin", { cross_project_version: T1 })).cross_project_version).toBe(T1);
    // Pinned to T1: factor 0.25, min_avg_pfc = 0.25 × 2.0 = 0.5.
    const pinned = appOf(await api.ok("POST", "/rescale", {}), "g_pin");
    expect(pinned).toMatchObject({ min_avg_pfc: 0.5, cross_project: { factor: 0.25, registry_version: T1 } });
    // Unpinned: the latest (T1 + 60), factor 0.5, min_avg_pfc = 1.0, pfc_scale = 1.0 / 2.0 = 0.5.
    await api.ok("PUT", "/apps/g_pin", { cross_project_version: null });
    const latest = appOf(await api.ok("POST", "/rescale", {}), "g_pin");
    expect(latest).toMatchObject({ min_avg_pfc: 1, scaled_versions: [{ id: 21, pfc_scale: 0.5 }] });
    expect(latest!.cross_project).toMatchObject({ factor: 0.5, registry_version: T1 + 60 });
  });
});
