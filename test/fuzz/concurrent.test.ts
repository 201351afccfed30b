/**
 * Property: random overlapping passes posted all at once (the same hosts, users, versions,
 * workunits and result ids, exact duplicates among them) end as some serial order would:
 * never a 5xx but a retryable 503, every result decided at most once across all answers,
 * totals = grants.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { request } from "../support/api";
import { type PassBody, setupProject } from "../support/api-helpers";
import { passArb } from "./arbitraries";
import { runs, seed } from "./config";
import { GrantBook, expectLedgerConsistent, expectWellFormed, projectIdOf } from "./ledger";

describe("fuzz: concurrent passes", () => {
  it("passes posted at once over a small pool of ids keep the ledger consistent", { timeout: 300_000 }, async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(passArb(12), { minLength: 2, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        async (passes, dupes) => {
          const { slug, token } = await setupProject("fz-conc");
          const id = await projectIdOf(slug);
          const bodies = [...passes, ...dupes.map((d) => passes[d % passes.length]!)];
          // A client retries a 503 (a pass that lost every one of its attempts to others), as a real one must.
          const post = async (body: PassBody) => {
            for (let attempt = 1; ; attempt++) {
              const res = await request("POST", `/v1/projects/${slug}/passes`, { token, body });
              if (res.status !== 503 || attempt === 5) return res;
              expectWellFormed(res.status, res.body, "503");
            }
          };
          const answers = await Promise.all(bodies.map(post));
          const book = new GrantBook();
          answers.forEach((res, i) => {
            expectWellFormed(res.status, res.body, JSON.stringify(bodies[i]).slice(0, 300));
            // 409 is a pass whose result another pass decided with other content.
            expect([200, 409], JSON.stringify(res.body).slice(0, 300)).toContain(res.status);
            if (res.status === 200) {
              accepted++;
              book.record(res.body);
            }
          });
          await expectLedgerConsistent(id);
        },
      ),
      { seed: seed(7006), numRuns: runs(40) },
    );
    expect(accepted).toBeGreaterThan(0);
  });
});
