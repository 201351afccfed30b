/**
 * Property: a random sequence of a validator's requests on one project (new passes over a
 * small pool of ids, exact re-posts, re-posts with other content, error reports, reads)
 * keeps the ledger's invariants after every step: no 5xx, errors in shape and writing
 * nothing, totals = grants, no result decided twice, a replay changes nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rawRequest } from "../support/api";
import { type PassBody, setupProject } from "../support/api-helpers";
import type { components } from "../support/api-types";
import { T, passArb } from "./arbitraries";
import { runs, seed } from "./config";
import { GrantBook, expectLedgerConsistent, expectWellFormed, projectIdOf, projectRows } from "./ledger";

type Step =
  | { kind: "pass"; body: unknown }
  | { kind: "repost"; index: number }
  | { kind: "repost_changed"; index: number; elapsed: number }
  | { kind: "errors"; ids: number[]; host: number; outcome: "error" | "timeout" | "aborted" }
  | { kind: "read"; what: "hosts" | "users" | "teams"; id: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: passArb(40).map((body) => ({ kind: "pass" as const, body })) },
  { weight: 2, arbitrary: fc.nat().map((index) => ({ kind: "repost" as const, index })) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("repost_changed" as const), index: fc.nat(), elapsed: fc.integer({ min: 1, max: 1e5 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("errors" as const),
      ids: fc.uniqueArray(fc.integer({ min: 11, max: 413 }), { minLength: 1, maxLength: 3 }),
      host: fc.integer({ min: 1, max: 6 }),
      outcome: fc.constantFrom("error" as const, "timeout" as const, "aborted" as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("read" as const),
      what: fc.constantFrom("hosts" as const, "users" as const, "teams" as const),
      id: fc.integer({ min: 0, max: 7 }),
    }),
  },
);

describe("fuzz: request sequences", () => {
  it("every step keeps the ledger consistent", { timeout: 300_000 }, async () => {
    let accepted = 0;
    let replayed = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 2, maxLength: 8 }), async (steps) => {
        const { slug, token } = await setupProject("fz-seq");
        const id = await projectIdOf(slug);
        const book = new GrantBook();
        const posted: PassBody[] = [];
        for (const step of steps) {
          let method = "POST";
          let path = `/v1/projects/${slug}/passes`;
          let body: unknown;
          if (step.kind === "pass") body = step.body;
          else if (step.kind === "repost" || step.kind === "repost_changed") {
            if (posted.length === 0) continue;
            const again = structuredClone(posted[step.index % posted.length]!);
            if (step.kind === "repost_changed") again.workunits[0]!.results[0]!.elapsed_time = step.elapsed;
            body = again;
          } else if (step.kind === "errors") {
            path = `/v1/projects/${slug}/errors`;
            body = {
              now: T,
              results: step.ids.map((r) => ({ id: r, host_id: step.host, app_version_id: 1, outcome: step.outcome, delay_bound: 3600 })),
            };
          } else {
            method = "GET";
            path = `/v1/projects/${slug}/${step.what}/${step.id}`;
          }
          const before = await projectRows(id);
          const res = await rawRequest(method, path, { token, body });
          const what = `${method} ${path} ${JSON.stringify(body)?.slice(0, 300)}`;
          expectWellFormed(res.status, res.body, what);
          if (res.status >= 400 || method === "GET") {
            expect(await projectRows(id), `${res.status} but written: ${what}`).toEqual(before);
          }
          if (res.status === 200 && path.endsWith("/passes")) {
            accepted++;
            // A 200 of POST …/passes: the documented answer, and the body was a pass.
            const answer = res.body as components["schemas"]["PassResponse"];
            book.record(answer);
            posted.push(body as PassBody);
            const all = answer.workunits.flatMap((w) => w.results);
            if (all.every((r) => r.replayed)) {
              replayed++;
              // A pure replay changes no row of the ledger (the audit log records the request).
              const { audit_log: _a, ...after } = await projectRows(id);
              const { audit_log: _b, ...was } = before;
              expect(after, `replay wrote: ${what}`).toEqual(was);
            }
          }
          await expectLedgerConsistent(id);
        }
      }),
      { seed: seed(7003), numRuns: runs(60) },
    );
    expect(accepted).toBeGreaterThan(0);
    expect(replayed).toBeGreaterThan(0);
  });
});
