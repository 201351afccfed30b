/**
 * Property: whatever a project posts to /passes (a valid pass spoiled at a random place with
 * an adversarial value, or its JSON text broken), the answer is never a 5xx; an error has the
 * documented shape and changed nothing; an accepted pass keeps every total the sum of its
 * grants, and no result is ever decided twice.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { setupProject } from "../support/api-helpers";
import { mutate, mutateText, mutationArb, passArb, textMutationArb, weirdArb } from "./arbitraries";
import { runs, seed } from "./config";
import { GrantBook, expectLedgerConsistent, expectWellFormed, projectIdOf, projectRows } from "./ledger";

async function fuzzProject(prefix: string) {
  const p = await setupProject(prefix);
  return { ...p, id: await projectIdOf(p.slug), book: new GrantBook() };
}

type Fuzzed = Awaited<ReturnType<typeof fuzzProject>>;

async function postAndCheck(p: Fuzzed, rawBody: string): Promise<number> {
  const before = await projectRows(p.id);
  const res = await p.postRaw("/passes", rawBody);
  expectWellFormed(res.status, res.body, rawBody.slice(0, 300));
  if (res.status >= 400) {
    expect(await projectRows(p.id), `rejected (${res.status}) but written: ${rawBody.slice(0, 300)}`).toEqual(before);
  } else {
    p.book.record(res.body);
    await expectLedgerConsistent(p.id);
  }
  return res.status;
}

describe("fuzz: POST /passes", () => {
  it(
    "a pass spoiled anywhere with an adversarial value: no 5xx, errors in shape and write nothing, totals = grants",
    { timeout: 300_000 },
    async () => {
      const p = await fuzzProject("fz-pass");
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(passArb(400), fc.nat(), mutationArb, weirdArb, fc.boolean(), async (pass, pick, how, value, spoil) => {
          const body = spoil ? mutate(pass, pick, how, value) : pass;
          const status = await postAndCheck(p, JSON.stringify(body));
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }),
        { seed: seed(7001), numRuns: runs(300) },
      );
      // The run exercised both sides: passes accepted and refused.
      expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
      expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
    },
  );

  it(
    "broken JSON text (truncated, 1e400, ids beyond 2^53, 20,000-deep nesting, garbage): no 5xx, nothing written",
    { timeout: 300_000 },
    async () => {
      const p = await fuzzProject("fz-text");
      await fc.assert(
        fc.asyncProperty(passArb(400), fc.nat(), textMutationArb, async (pass, pick, how) => {
          await postAndCheck(p, mutateText(JSON.stringify(pass), pick, how));
        }),
        { seed: seed(7002), numRuns: runs(150) },
      );
    },
  );
});
