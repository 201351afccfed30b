/**
 * Inputs that would make a statistic non-finite are rejected (docs/spec/credit.md#finite-numbers); every size limit
 * answers 413; ids must survive a round trip through a double.
 */
import { describe, expect, it } from "vitest";
import { expectError, expectNothingWritten, pass, result, setupProject, validPass, workunit } from "../support/api-helpers";

describe("limits", () => {
  it("rsc_fpops_est below 1 FLOP (5e-324 would make elapsed/est infinite) → 400, nothing written", async () => {
    const { api } = await setupProject();
    const bad = validPass(1, 10, (p) => {
      p.workunits[0]!.rsc_fpops_est = 5e-324;
    });
    const error = expectError(await api.raw("POST", "/passes", bad), 400, "validation_failed");
    expect(error.issues!.map((i) => i.path)).toEqual(["workunits[0].rsc_fpops_est"]);
    await expectNothingWritten(api, validPass(1, 10));
  });

  it("an elapsed_time over 1e12 s → 400 at its path", async () => {
    const { api } = await setupProject();
    const bad = validPass(1, 10, (p) => {
      p.workunits[0]!.results[0]!.elapsed_time = 1e13;
    });
    const error = expectError(await api.raw("POST", "/passes", bad), 400, "validation_failed");
    expect(error.issues!.map((i) => i.path)).toEqual(["workunits[0].results[0].elapsed_time"]);
  });

  it("an absurd claim whose elapsed × FLOPS overflows is capped at the bound and explains itself with raw_pfc the largest double", async () => {
    const { api } = await setupProject();
    const res = await api.ok(
      "POST",
      "/passes",
      pass(workunit(1, [result(11, { host_id: 10, elapsed_time: 1e10, flops_estimate: 1e300 })])),
    );
    const r = res.workunits[0]!.results[0]!;
    // 1e10 s × 1e300 FLOPS overflows; the product saturates at the largest double.
    expect(r.explain?.raw_pfc).toBe(Number.MAX_VALUE);
    // Capped at rsc_fpops_bound = 3e13 FLOPs: 3e13 × 200 / 86400e9 credits.
    expect(r.claimed_credit).toBeCloseTo((3e13 * 200) / 86400e9, 10);
    expect(r.granted_credit).toBeCloseTo((3e13 * 200) / 86400e9, 10);
  });

  it("a negative flops_estimate is accepted as BOINC does: 4.3e9 FLOPS, no statistics sample", async () => {
    const { api } = await setupProject();
    const res = await api.ok("POST", "/passes", pass(workunit(1, [result(11, { host_id: 10, elapsed_time: 1000, flops_estimate: -5 })])));
    const r = res.workunits[0]!.results[0]!;
    // 1000 s × 4.3e9 FLOPS (sched/credit.cpp: flops_estimate <= 0 → 4.3e9, the result skips statistics).
    expect(r.explain?.raw_pfc).toBe(1000 * 4.3e9);
    expect(r.explain?.runtime_outlier).toBe(true);
  });

  it("1001 error results → 413 too_large", async () => {
    const { api } = await setupProject();
    const results = Array.from({ length: 1001 }, (_, i) => ({ id: i + 1, host_id: 10, app_version_id: 1, outcome: "error" as const }));
    expectError(await api.raw("POST", "/errors", { results }), 413, "too_large");
  });

  it("the same workunit twice in one pass → 400 at the second", async () => {
    const { api } = await setupProject();
    const bad = pass(workunit(1, [result(11)]), workunit(1, [result(12)]));
    const error = expectError(await api.raw("POST", "/passes", bad), 400, "validation_failed");
    expect(error.issues!.map((i) => i.path)).toEqual(["workunits[1].id"]);
  });

  it("a credited workunit posted again under another app → 409, nothing written", async () => {
    const { api } = await setupProject();
    await api.ok("POST", "/passes", pass(workunit(1, [result(11)])));
    const moved = pass(workunit(1, [result(12, { host_id: 11, user_id: 11, app_version_id: 3 })], { app: "g" }));
    expectError(await api.raw("POST", "/passes", moved), 409, "conflict");
    expect((await api.raw("GET", "/hosts/11")).status).toBe(404);
  });

  it("a path id beyond 2^53 → 400 rather than a silently rounded id", async () => {
    const { api } = await setupProject();
    expectError(await api.raw("PUT", "/hosts/9007199254740993", {}), 400, "validation_failed");
    expectError(await api.raw("GET", "/hosts/9999999999999999"), 400, "validation_failed");
  });

  it("a body not sent as JSON → 415 unsupported_media_type", async () => {
    const { slug, token } = await setupProject();
    const { exports } = await import("cloudflare:workers");
    const res = await exports.default.fetch(`http://cobblestone.test/v1/projects/${slug}/passes`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "text/plain" },
      body: JSON.stringify(validPass()),
    });
    expectError({ status: res.status, body: await res.json() }, 415, "unsupported_media_type");
  });
});
