/**
 * The feeder's rescale (docs/spec/credit.md#rescale), run by POST /rescale and by the 10-minute cron.
 * Scenario: app "a" has two CPU versions with 101 PFC samples each (> 100, so both count):
 * version 1's samples are all 1.0 (1000 s × 3e9 FLOPS / 3e12), version 2's all 2.0 (6e9 FLOPS).
 * The app's CPU average, weighted by samples, is (1.0·101 + 2.0·101) / 202 = 1.5, so
 * min_avg_pfc = 1.5, version 1's pfc_scale = 1.5 / 1.0 = 1.5, version 2's = 1.5 / 2.0 = 0.75.
 */
import { env } from "cloudflare:workers";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { refreshSnapshots } from "../../src/jobs/kv-refresh";
import { pass, result, setupProject, workunit } from "../support/api-helpers";
import type { components } from "../support/api-types";

const SAMPLES = 101;

async function projectWithSampledVersions() {
  const project = await setupProject("rescale");
  const workunits = Array.from({ length: SAMPLES }, (_, i) =>
    workunit(100 + i, [
      result(1000 + 2 * i, { host_id: 50 + (i % 7), user_id: 5 }),
      result(1001 + 2 * i, { host_id: 60 + (i % 7), user_id: 6, app_version_id: 2, flops_estimate: 6e9 }),
    ]),
  );
  await project.api.ok("POST", "/passes", pass(...workunits));
  return project;
}

function expectScaled(apps: components["schemas"]["App"][], versions: components["schemas"]["AppVersion"][]) {
  expect(apps.find((a) => a.name === "a")!.min_avg_pfc).toBe(1.5);
  expect(versions.find((v) => v.id === 1)!.pfc_scale).toBe(1.5);
  expect(versions.find((v) => v.id === 2)!.pfc_scale).toBe(0.75);
  // App "g" has no samples: BOINC changes nothing, min_avg_pfc keeps its registered 1.5.
  expect(apps.find((a) => a.name === "g")!.min_avg_pfc).toBe(1.5);
  expect(versions.find((v) => v.id === 3)!.pfc_scale).toBe(0);
}

describe("rescale", () => {
  it("POST /rescale sets min_avg_pfc and pfc_scale from the sample-weighted CPU average, and says why", async () => {
    const { api } = await projectWithSampledVersions();
    const res = await api.ok("POST", "/rescale", {});
    const a = res.apps.find((x) => x.name === "a");
    expect(a!.basis).toBe("cpu_average");
    expect(a!.scaled_versions).toEqual([
      { id: 1, pfc_scale: 1.5 },
      { id: 2, pfc_scale: 0.75 },
    ]);
    expect(res.apps.find((x) => x.name === "g")!.basis).toBeNull();
    expectScaled((await api.ok("GET", "/apps")).apps, (await api.ok("GET", "/app-versions")).app_versions);
  });

  it("the cron trigger rescales every project", async () => {
    const { api } = await projectWithSampledVersions();
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "*/10 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    expectScaled((await api.ok("GET", "/apps")).apps, (await api.ok("GET", "/app-versions")).app_versions);
  });

  it("after rescale a host with 10 samples gets NORMAL mode: version scale × host scale", async () => {
    const { api } = await projectWithSampledVersions();
    await api.ok("POST", "/rescale", {});
    // Host 50 returned 15 of version 1's results (ratio 1.0), so hav.pfc.avg = 1.0 and
    // host scale = av.pfc.avg / hav.pfc.avg = 1.0. Claim: 3e12 × 1.5 × 1.0 = 4.5e12 FLOPs.
    const res = await api.ok(
      "POST",
      "/passes",
      pass(workunit(900, [result(9001, { host_id: 50, user_id: 5 }), result(9002, { host_id: 51, user_id: 5 })])),
    );
    const r = res.workunits[0]!.results[0];
    expect(r!.pfc_mode).toBe("normal");
    expect(r!.explain).toMatchObject({ pfc_scale: 1.5, host_scale: 1 });
    expect(r!.claimed_credit).toBeCloseTo((4.5e12 * 200) / 86400e9, 12);
  });

  it("a rescale that changes no scale marks nothing dirty for the KV refresh", async () => {
    const { api, slug } = await projectWithSampledVersions();
    const projectMarks = async () =>
      (await env.DB.prepare(
        "SELECT count(DISTINCT project_id) AS n FROM kv_marks, json_each(kv_marks.subjects) AS j WHERE json_extract(j.value, '$[0]') = 'project' AND project_id = (SELECT id FROM projects WHERE slug = ?)",
      )
        .bind(slug)
        .first<{ n: number }>())!.n;
    await api.ok("POST", "/rescale", {});
    expect(await projectMarks()).toBe(1); // the first rescale changed the scales
    await refreshSnapshots(env, Date.now() / 1000);
    expect(await projectMarks()).toBe(0);
    // Same samples, same scales: nothing to republish.
    await api.ok("POST", "/rescale", {});
    expect(await projectMarks()).toBe(0);
  });

  it("leaves deprecated apps out, as BOINC's feeder enumerates only deprecated = 0", async () => {
    const { api } = await projectWithSampledVersions();
    await api.ok("PUT", "/apps/a", { deprecated: true });
    const res = await api.ok("POST", "/rescale", {});
    expect(res.apps.map((x) => x.name)).not.toContain("a");
    // Version 1 keeps its unscaled 0 (it would be 1.5 if app "a" were rescaled).
    const versions = (await api.ok("GET", "/app-versions")).app_versions;
    expect(versions.find((v) => v.id === 1)!.pfc_scale).toBe(0);
    expect(versions.find((v) => v.id === 2)!.pfc_scale).toBe(0);
  });
});
