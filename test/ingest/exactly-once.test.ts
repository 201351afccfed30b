/**
 * A result is credited once per project, ever (docs/spec/credit.md#re-posts-and-late-results): re-posts replay,
 * other content conflicts, an inconclusive result may come back with a verdict, and late
 * results of a credited workunit get its stored credit.
 */
import { describe, expect, it } from "vitest";
import { COBBLESTONE_SCALE } from "../../src/credit/constants";
import { expectError, pass, result, setupProject, workunit } from "../support/api-helpers";

// Two results of 1000 s at 3e9 FLOPS on a 3e12-FLOP workunit, no scales yet (pfc_scale 0,
// min_avg_pfc 1): both are APPROX claims of 3e12 FLOPs, so the workunit earns
// 3e12 × 200/86400e9 = 6.944… credits, the pegged average of two equal claims.
const CREDIT = 3e12 * COBBLESTONE_SCALE;

function twoHostWorkunit(id: number, state: "valid" | "inconclusive" = "valid") {
  return workunit(id, [
    result(id * 10 + 1, { host_id: 21, user_id: 21, validate_state: state }),
    result(id * 10 + 2, { host_id: 22, user_id: 22, validate_state: state }),
  ]);
}

describe("exactly once", () => {
  it("an identical re-post is replayed with the stored outcome and changes nothing", async () => {
    const { api } = await setupProject();
    const first = await api.ok("POST", "/passes", pass(twoHostWorkunit(1)));
    expect(first.workunits[0]!.credit).toBeCloseTo(CREDIT, 12);
    const hostBefore = await api.ok("GET", "/hosts/21");

    const again = await api.ok("POST", "/passes", pass(twoHostWorkunit(1)));
    expect(again.workunits[0]!.replayed).toBe(true);
    expect(again.workunits[0]!.path).toBe("replayed");
    expect(again.workunits[0]!.results.map((r) => [r.replayed, r.granted_credit])).toEqual([
      [true, first.workunits[0]!.results[0]!.granted_credit],
      [true, first.workunits[0]!.results[1]!.granted_credit],
    ]);
    const hostAfter = await api.ok("GET", "/hosts/21");
    expect(hostAfter.total_credit).toBe(hostBefore.total_credit);
    expect(hostAfter.expavg_credit).toBe(hostBefore.expavg_credit);
  });

  it("a decided result re-posted with another verdict or other numbers is a 409 and the pass writes nothing", async () => {
    const { api } = await setupProject();
    await api.ok("POST", "/passes", pass(twoHostWorkunit(1)));
    const changed = pass(twoHostWorkunit(2), twoHostWorkunit(1));
    changed.workunits[1]!.results[0]!.validate_state = "invalid";
    const res = await api.raw("POST", "/passes", changed);
    expect(res.status).toBe(409);
    expect(expectError(res, 409).issues?.[0]?.path).toBe("workunits[1].results[0]");
    // Workunit 2, valid on its own, was not credited either.
    const later = await api.ok("POST", "/passes", pass(twoHostWorkunit(2)));
    expect(later.workunits[0]!.results[0]!.replayed).toBe(false);
  });

  it("an inconclusive result earns nothing, and is processed once when it comes back valid", async () => {
    const { api } = await setupProject();
    const pending = await api.ok("POST", "/passes", pass(twoHostWorkunit(3, "inconclusive")));
    expect(pending.workunits[0]).toMatchObject({ credit: 0, path: "pending" });
    // It names its host (docs/spec/credit.md#first-seen), which exists from now on, with nothing credited yet.
    expect((await api.ok("GET", "/hosts/21")).total_credit).toBe(0);

    const decided = await api.ok("POST", "/passes", pass(twoHostWorkunit(3, "valid")));
    expect(decided.workunits[0]!.path).toBe("fresh");
    expect(decided.workunits[0]!.results.every((r) => r.replayed === false)).toBe(true);
    expect((await api.ok("GET", "/hosts/21")).total_credit).toBeCloseTo(CREDIT, 12);

    const replay = await api.ok("POST", "/passes", pass(twoHostWorkunit(3, "valid")));
    expect(replay.workunits[0]!.replayed).toBe(true);
    expect((await api.ok("GET", "/hosts/21")).total_credit).toBeCloseTo(CREDIT, 12);
  });

  it("a late valid result gets the workunit's stored credit and counts toward consecutive_valid; a late invalid one resets it", async () => {
    const { api } = await setupProject();
    await api.ok("POST", "/passes", pass(twoHostWorkunit(4)));
    // The late result claims twice as much (2000 s); it still gets the stored credit.
    const late = await api.ok(
      "POST",
      "/passes",
      pass(workunit(4, [result(43, { host_id: 23, user_id: 23, elapsed_time: 2000, received_time: 5500 })])),
    );
    expect(late.workunits[0]!.path).toBe("late");
    expect(late.workunits[0]!.results[0]!.granted_credit).toBeCloseTo(CREDIT, 12);
    expect(late.workunits[0]!.results[0]!.claimed_credit).toBeCloseTo(2 * CREDIT, 12);
    const hav = await api.ok("GET", "/host-app-versions?host_id=23");
    expect(hav.host_app_versions[0]).toMatchObject({ consecutive_valid: 1, pfc_n: 1, pfc_avg: 2 });

    await api.ok("POST", "/passes", pass(workunit(4, [result(44, { host_id: 23, user_id: 23, validate_state: "invalid" })])));
    const after = await api.ok("GET", "/host-app-versions?host_id=23");
    expect(after.host_app_versions[0]!.consecutive_valid).toBe(0);
    expect((await api.ok("GET", "/hosts/23")).total_credit).toBeCloseTo(CREDIT, 12);
  });

  it("the same pass posted twice at once credits each result once", async () => {
    const { api } = await setupProject();
    const body = pass(twoHostWorkunit(5), twoHostWorkunit(6));
    const [a, b] = await Promise.all([api.ok("POST", "/passes", body), api.ok("POST", "/passes", body)]);
    const replayedCounts = [a, b].map((r) => r.workunits.flatMap((w) => w.results).filter((x) => x.replayed).length);
    expect(replayedCounts.sort()).toEqual([0, 4]);
    expect((await api.ok("GET", "/hosts/21")).total_credit).toBeCloseTo(2 * CREDIT, 12);
  });
});
