/**
 * Properties over the other endpoints: random reads (any path segment, any query) and random
 * registrations and error reports (valid bodies spoiled with adversarial values, names in any
 * script) never give a 5xx; an error has the documented shape; a read or a refused write
 * changes nothing; an accepted one keeps totals = grants.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rawRequest, request } from "../support/api";
import { setupProject } from "../support/api-helpers";
import { T, mutate, mutationArb, weirdArb } from "./arbitraries";
import { runs, seed } from "./config";
import { expectLedgerConsistent, expectWellFormed, projectIdOf, projectRows } from "./ledger";

/** A path segment or query value: plausible, extreme, or hostile. */
const segmentArb = fc.oneof(
  fc.constantFrom(
    "1",
    "0",
    "-1",
    "7",
    "9007199254740991",
    "9007199254740993",
    "1e3",
    "0x10",
    "NaN",
    "Infinity",
    "..",
    "%00",
    "a%2Fb",
    "",
    "ü",
    "🚀",
  ),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.integer().map(String),
);

const readArb = fc.tuple(
  fc.constantFrom(
    "/v1/projects/{slug}/{kind}/{x}",
    "/v1/projects/{slug}/{kind}/{x}/history?days={y}&end={z}",
    "/v1/projects/{slug}/top/{kind}?by={y}&limit={z}&cursor={x}",
    "/v1/projects/{slug}/history?days={x}",
    "/v1/projects/{x}",
    "/v1/projects/{slug}/apps",
    "/v1/projects/{slug}/host-app-versions?host_id={x}",
    "/v1/projects/{slug}/audit?limit={x}&cursor={y}",
    "/v1/projects/{slug}/tokens",
    "/v1/cpid/{x}",
    "/v1/plan-classes?version={x}&format={y}",
    "/v1/projects/{slug}/stats/{x}",
    "/v1/am/{x}/users/{y}/history?days={z}",
    "/v1/{x}/{y}",
  ),
  fc.constantFrom("users", "hosts", "teams", "apps"),
  segmentArb,
  segmentArb,
  segmentArb,
  fc.boolean(),
);

describe("fuzz: reads and registrations", () => {
  it("random reads: no 5xx, errors in shape, nothing written", { timeout: 300_000 }, async () => {
    const { slug, token, api } = await setupProject("fz-read");
    await api.ok("POST", "/passes", {
      now: T,
      workunits: [
        {
          id: 1,
          app: "a",
          rsc_fpops_est: 3e12,
          rsc_fpops_bound: 3e13,
          target_nresults: 1,
          results: [
            {
              id: 11,
              host_id: 7,
              user_id: 7,
              team_id: 1,
              app_version_id: 1,
              elapsed_time: 1000,
              cpu_time: 900,
              flops_estimate: 3e9,
              sent_time: T - 9000,
              received_time: T - 10,
              validate_state: "valid",
            },
          ],
        },
      ],
    });
    const id = await projectIdOf(slug);
    const before = await projectRows(id);
    await fc.assert(
      fc.asyncProperty(readArb, async ([template, kind, x, y, z, withToken]) => {
        const path = template
          .replace("{slug}", slug)
          .replace("{kind}", kind)
          .replace("{x}", encodeURIComponent(x))
          .replace("{y}", encodeURIComponent(y))
          .replace("{z}", encodeURIComponent(z));
        const res = await request("GET", path, withToken ? { token } : {});
        expectWellFormed(res.status, res.body, `GET ${path}`);
      }),
      { seed: seed(7004), numRuns: runs(250) },
    );
    expect(await projectRows(id)).toEqual(before);
  });

  it(
    "random registrations and error reports: no 5xx, errors in shape and write nothing, totals = grants",
    { timeout: 300_000 },
    async () => {
      const { slug, token } = await setupProject("fz-reg");
      const id = await projectIdOf(slug);
      const requests = fc.oneof(
        fc.tuple(
          fc.constant("PUT"),
          segmentArb.map((n) => `/apps/${encodeURIComponent(n || "a")}`),
          fc.constant<unknown>({
            host_scale_check: true,
            target_nresults: 2,
            credit_mode: "adaptive",
            max_granted_credit: 100,
            min_avg_pfc: 1,
          }),
        ),
        fc.tuple(
          fc.constant("PUT"),
          segmentArb.map((n) => `/app-versions/${encodeURIComponent(n)}`),
          fc.constant<unknown>({ app: "a", platform: "linux", plan_class: "", version_num: 2 }),
        ),
        fc.tuple(
          fc.constantFrom("PUT"),
          fc.tuple(fc.constantFrom("hosts", "users", "teams"), segmentArb).map(([k, n]) => `/${k}/${encodeURIComponent(n)}`),
          fc.constant<unknown>({ name: "ünï 🚀", create_time: T - 100 }),
        ),
        fc.tuple(
          fc.constant("POST"),
          fc.constant("/errors"),
          fc.constant<unknown>({ now: T, results: [{ id: 901, host_id: 7, app_version_id: 1, outcome: "timeout", delay_bound: 3600 }] }),
        ),
        fc.tuple(fc.constant("POST"), fc.constant("/rescale"), fc.constant<unknown>({ now: T })),
      );
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(
          requests,
          fc.nat(),
          mutationArb,
          weirdArb,
          fc.boolean(),
          async ([method, path, valid], pick, how, value, spoil) => {
            const body = spoil ? mutate(valid, pick, how, value) : valid;
            const before = await projectRows(id);
            const res = await rawRequest(method, `/v1/projects/${slug}${path}`, { token, body });
            const what = `${method} ${path} ${JSON.stringify(body)?.slice(0, 200)}`;
            expectWellFormed(res.status, res.body, what);
            if (res.status >= 400) expect(await projectRows(id), `${res.status} but written: ${what}`).toEqual(before);
            else accepted++;
            await expectLedgerConsistent(id);
          },
        ),
        { seed: seed(7005), numRuns: runs(250) },
      );
      expect(accepted).toBeGreaterThan(0);
    },
  );
});
