/**
 * Fair policy version 2 through the API, with numbers worked out by hand: an error creates the
 * missing host × version row of a fair app (docs/spec/fair-policy.md#r0), and a pass's explanation and the fairness
 * report show w_v and the quantile gate (docs/spec/fair-policy.md#r14, docs/spec/fair-policy.md#r17).
 */
import { describe, expect, it } from "vitest";
import { type ResultBody, result, setupProject, workunit } from "../support/api-helpers";
import type { components } from "../support/api-types";
import { expectRel } from "../credit/close";

const NOW = 6000.25;
const COBBLESTONE = 200 / 86400e9;

describe("an error outcome for a host × version without a row", () => {
  it("creates the row and counts under fair (err = 0.05), and changes nothing under boinc", async () => {
    // App "a" (versions 1, 2) on fair, app "g" (version 3) on boinc.
    const { api } = await setupProject("fairerr");
    await api.ok("PUT", "/apps/a", { host_scale_check: false, credit_policy: "fair" });
    const error = (
      id: number,
      hostId: number,
      appVersionId: number,
      outcome: components["schemas"]["ErrorResult"]["outcome"] = "error",
    ) => ({
      id,
      host_id: hostId,
      app_version_id: appVersionId,
      outcome,
    });
    await api.ok("POST", "/errors", { now: NOW, results: [error(9001, 50, 1), error(9002, 50, 3), error(9003, 52, 1, "aborted")] });
    const rows = async (hostId: number) => (await api.ok("GET", `/host-app-versions?host_id=${hostId}`)).host_app_versions;

    const [row, ...others] = await rows(50);
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      app_version_id: 1,
      app: "a",
      fair_error_rate: 0.05,
      fair_n: 0,
      fair_high_z_share: null,
      pfc_n: 0,
      consecutive_valid: 0,
    });
    // An abort by the project neither counts nor creates a row.
    expect(await rows(52)).toEqual([]);

    // Two errors of a new row in one request: 0.05, then 0.05 + 0.05 × (1 − 0.05) = 0.0975.
    await api.ok("POST", "/errors", { now: NOW, results: [error(9004, 51, 2), error(9005, 51, 2)] });
    expectRel((await rows(51))[0]!.fair_error_rate, 0.0975);

    // The next pass reads the row: a valid result lowers the rate to 0.05 × 0.95.
    const valid = (wuId: number, hostId: number) =>
      workunit(wuId, [result(wuId * 10 + 1, { host_id: hostId, user_id: hostId })], { target_nresults: 1 });
    await api.ok("POST", "/passes", { now: NOW + 10, workunits: [valid(1, 50), valid(2, 53)] });
    const [after] = await rows(50);
    expectRel(after!.fair_error_rate, 0.0475);
    expect(after!.pfc_n).toBe(1);
    // The report shows each host's own rate (host 53 never erred; host 51's 0.0975 is its own).
    const report = await api.ok("GET", "/apps/a/fairness?now=7000");
    const rates = new Map(report.hosts.map((h) => [h.host_id, h.error_rate]));
    expect(rates.size).toBe(2);
    expectRel(rates.get(50) as number, 0.0475);
    expect(rates.get(53)).toBe(0);
  });
});

describe("w_v and the gate in the explanation and the fairness report", () => {
  // Hosts 1 and 2 each validate ten jobs of r = 1 (est 3e12, 1000 s at 3e9 FLOPS): young, their
  // typical ln r is 0 and the version's level exp(median of twenty ln 1) = 1, scale 1 (CPU seed).
  const young = (host: number, k: number) =>
    workunit(host * 100 + k, [result(host * 1000 + k, { host_id: host, user_id: host })], { target_nresults: 1 });
  const job = (host: number, flops: number): ResultBody =>
    result(host * 1000 + 99, { host_id: host, user_id: host, flops_estimate: flops });

  it("shows w_v, which results fed the quantiles, and the host the gate holds out", async () => {
    const { api } = await setupProject("fairgate");
    await api.ok("PUT", "/apps/a", { host_scale_check: false, credit_policy: "fair" });
    const warmUp = [1, 2].flatMap((host) => Array.from({ length: 10 }, (_, k) => young(host, k)));
    const first = await api.ok("POST", "/passes", { now: NOW, workunits: warmUp });
    const youngFair = first.workunits[0]!.results[0]!.explain!.fair;
    expect(youngFair).toMatchObject({ rule: "young_host", w_v: 1, feeds_quantiles: false, held_out_by_gate: false });

    // Host 1 claims r = 3.5 (z = ln 3.5, above t_hi = ln 3, below ln 3.75: not an outlier);
    // host 2 claims r = 1.2 (z = ln 1.2).
    const second = await api.ok("POST", "/passes", {
      now: NOW + 60,
      workunits: [workunit(199, [job(1, 10.5e9)], { target_nresults: 1 }), workunit(299, [job(2, 3.6e9)], { target_nresults: 1 })],
    });
    const [one, two] = second.workunits.map((w) => w.results[0]);
    // w_v: the band ln 3 − ln ⅓ = ln 9 ≥ ln 4 (no z fed yet): 1, the whole z is paid.
    // Host 1: E × 3.5 = 3e12 × 3.5; its share starts at the gate max(3 × 0.02, 0.02 + 0.1) = 0.12
    // and moves to 0.12 + 0.02 × (1 − 0.12) = 0.1376 > 0.12: held out.
    expect(one!.explain!.fair).toMatchObject({ rule: "normalized", w_v: 1, feeds_quantiles: false, held_out_by_gate: true });
    expectRel(one!.explain!.fair!.claimed_credit, 3e12 * 3.5 * COBBLESTONE);
    // Host 1's new typical value 0.02 fed the level: L = 1 + (e^0.02 − 1) / 21, so host 2's
    // E = 3e12 × L, paid × 1.2; its share 0.12 − 0.02 × 0.12 = 0.1176 ≤ its gate 0.12196: fed.
    const level = 1 + (Math.exp(0.02) - 1) / 21;
    expect(two!.explain!.fair).toMatchObject({ rule: "normalized", w_v: 1, feeds_quantiles: true, held_out_by_gate: false });
    expectRel(two!.explain!.fair!.claimed_credit, 3e12 * level * 1.2 * COBBLESTONE);
    expectRel(two!.granted_credit, 3e12 * level * 1.2 * COBBLESTONE);

    // The version's share: 0.02 + 0.002 × 0.98 = 0.02196 (host 1), × 0.998 = 0.02191608 (host 2);
    // the gate max(3 × 0.02191608, 0.02191608 + 0.1) = 0.12191608.
    const report = await api.ok("GET", "/apps/a/fairness?now=7000");
    expect(report.held_out_by_gate).toHaveLength(1);
    const [held] = report.held_out_by_gate;
    expect([held!.host_id, held!.app_version_id]).toEqual([1, 1]);
    expectRel(held!.high_z_share, 0.1376);
    expectRel(held!.gate, 0.12191608);
    const flags = new Map(report.hosts.map((h) => [h.host_id, h.held_out_by_gate]));
    expect(flags).toEqual(
      new Map([
        [1, true],
        [2, false],
      ]),
    );
    const version = (await api.ok("GET", "/app-versions")).app_versions.find((v) => v.id === 1);
    expectRel(version!.fair_high_z_share, 0.02191608);
    expect(version!.fair_w_v).toBe(1);
  });
});
