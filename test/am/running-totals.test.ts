/**
 * The running totals stay prefix sums whatever order the days are booked in: three hosts,
 * each with its own clock, book integer credits on random days; the hosts' RPCs are
 * interleaved at random, so a day is often booked after a later one. Every RPC is 10 minutes
 * or more after its host's previous one and claims at most 100 credits, under the 555.5…
 * that 4 CPUs may earn in 10 minutes (4 × 20,000 / 144): nothing is clipped.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EINSTEIN, T0, createAm, rpcBody, totals } from "./support";

const DAYS = 5;
const STEP = 600;

/** One host's RPCs: [day offset 0 … 4, credit 1 … 100], sorted by day. */
const hostRpcs = fc
  .array(fc.tuple(fc.integer({ min: 0, max: DAYS - 1 }), fc.integer({ min: 1, max: 100 })), { minLength: 1, maxLength: 6 })
  .map((rpcs) => rpcs.sort((a, b) => a[0] - b[0]));

describe("running totals", () => {
  it("equal the prefix sums of the days' deltas, in any booking order", { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostRpcs, { minLength: 3, maxLength: 3 }), fc.array(fc.nat(2), { maxLength: 30 }), async (hosts, picks) => {
        const am = await createAm("rt");
        // Each host's baseline, on the day before the first.
        for (let h = 0; h < hosts.length; h++) await am.rpc(h + 1, rpcBody(T0 - 3600, [totals(EINSTEIN)]));
        // Interleave: `picks` chooses which host posts next; the rest follow in host order.
        const next = hosts.map(() => 0);
        const lifetime = hosts.map(() => 0);
        const order = [...picks, ...hosts.flatMap((rpcs, h) => rpcs.map(() => h))];
        const perDay = Array<number>(DAYS).fill(0);
        for (const h of order) {
          const k = next[h]!;
          const rpc = hosts[h]![k];
          if (!rpc) continue;
          next[h] = k + 1;
          const [day, credit] = rpc;
          lifetime[h]! += credit;
          perDay[day] = perDay[day]! + credit;
          await am.rpc(h + 1, rpcBody(T0 + day * 86_400 + (k + 1) * STEP, [totals(EINSTEIN, { cpu_ec: lifetime[h]! })]));
        }
        const series = await am.series("totals", { end: "2024-10-08", days: DAYS });
        let running = 0;
        expect(series.map((d) => [d.ec, d.total_ec])).toEqual(perDay.map((ec) => [ec, (running += ec)]));
      }),
      { numRuns: 12, seed: 8 },
    );
  });
});
