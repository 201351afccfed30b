/**
 * Concurrent RPCs never lose or double a delta. Every RPC's totals grow slowly enough that no
 * clip applies in any order (at most 10 credits an hour on 4 CPUs that allow 3,333.33…), so in
 * any serial order the booked credit telescopes to (last accepted totals − baseline).
 */
import { describe, expect, it } from "vitest";
import { errorOf } from "../support/api-helpers";
import { EINSTEIN, HOUR, T0, createAm, rpcBody, totals } from "./support";

const RPCS = 12;

describe("concurrent account-manager RPCs", () => {
  it(`${RPCS} RPCs of one host at once, each also posted twice: every delta booked once`, async () => {
    const am = await createAm();
    await am.rpc(1, rpcBody(T0, [totals(EINSTEIN, { cpu_ec: 1000 })]));
    // RPC k at T0 + k hours reports 1000 + 10k credits.
    const bodies = Array.from({ length: RPCS }, (_, i) =>
      rpcBody(T0 + (i + 1) * HOUR, [totals(EINSTEIN, { cpu_ec: 1000 + 10 * (i + 1) })]),
    );
    const responses = await Promise.all([...bodies, ...bodies].map((b) => am.rpcRaw(1, b)));
    // An RPC older than one already booked is refused (its totals are inside the newer one's);
    // one that kept colliding asks for a retry. Neither booked anything.
    for (const r of responses) {
      if (r.status !== 200) expect(["rpc_out_of_order", "concurrent_write"], JSON.stringify(r.body)).toContain(errorOf(r).code);
    }
    const booked = responses.filter((r) => r.status === 200 && !r.body.replayed);
    const bookedSum = booked.reduce((s, r) => s + r.body.projects[0]!.booked.cpu_ec, 0);
    const accepted = responses.filter((r) => r.status === 200).map((r) => r.body.now);
    const lastAccepted = Math.max(...accepted);
    // The newest RPC stored is the newest accepted one.
    const stored = await am.rpcs(1);
    expect(stored[0]!.now).toBe(lastAccepted);
    // Telescoping: 10 credits per hour from T0 to the last accepted RPC.
    const expected = 10 * Math.round((lastAccepted - T0) / HOUR);
    expect(bookedSum).toBeCloseTo(expected, 9);
    const [day] = await am.series("totals", { end: "2024-10-04", days: 1 });
    expect(day!.ec).toBeCloseTo(expected, 9);
    expect(day!.total_ec).toBeCloseTo(expected, 9);
    // Every stored RPC is one booking (plus the baseline); replays stored nothing.
    expect(stored).toHaveLength(booked.length + 1);
  });

  it("RPCs of many hosts at once share the user, project and total rows without losing an update", async () => {
    const am = await createAm();
    const HOSTS = 10;
    const hosts = Array.from({ length: HOSTS }, (_, i) => i + 1);
    await Promise.all(hosts.map((h) => am.rpc(h, rpcBody(T0, [totals(EINSTEIN)]))));
    // Host h books h credits.
    await Promise.all(hosts.map((h) => am.rpc(h, rpcBody(T0 + HOUR, [totals(EINSTEIN, { cpu_ec: h })]))));
    // 1 + 2 + … + 10 = 55.
    const q = { end: "2024-10-04", days: 1 };
    expect((await am.series("totals", q))[0]!.ec).toBe(55);
    expect((await am.series("users/7", q))[0]!.total_ec).toBe(55);
    expect((await am.series("projects", { ...q, url: EINSTEIN }))[0]!.ec).toBe(55);
  });
});
