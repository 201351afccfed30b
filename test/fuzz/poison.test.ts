/**
 * Poison input never wedges a project. Property: pass bodies drawn at the extremes (0,
 * denormals, 1e308, the largest double, negative values, ids up to 2^53 − 1, anonymous
 * platforms, min_avg_pfc 0 or denormal, max_granted_credit 0) under every credit mode of the
 * BOINC policy, and under the fair policy (which decides only adaptive credit), are answered
 * 2xx or 4xx, never 5xx; no stored
 * or served number is NaN or infinite (a NaN stored by D1 is NULL, so served numbers are also
 * checked for null); and the project's next ordinary pass is still credited.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CreditPolicy } from "../../src/credit/parameters";
import { CREDIT_MODES, type CreditMode, grantsOnValidation } from "../../src/credit/credit-mode";
import { request } from "../support/api";
import { setupProject } from "../support/api-helpers";
import { T } from "./arbitraries";
import { runs, seed } from "./config";
import { projectIdOf } from "./ledger";

const TINY = Number.MIN_VALUE; // 5e-324, the smallest denormal
const extreme = (...more: number[]) => fc.constantFrom(0, -0, TINY, 2.2e-308, 1e-7, 1, 1e9, 1e12, ...more);

const appArb = fc.record({
  min_avg_pfc: fc.constantFrom(0, TINY, 1e-300, 1, 1e30),
  max_granted_credit: fc.constantFrom(0, TINY, 1, 1e15),
});

const resultArb = (wuId: number, k: number) =>
  fc.record({
    id: fc.constant(wuId * 10 + k),
    host_id: fc.constantFrom(1, 2, Number.MAX_SAFE_INTEGER),
    user_id: fc.constantFrom(0, 1, Number.MAX_SAFE_INTEGER),
    team_id: fc.constantFrom(0, 1),
    app_version_id: fc.constantFrom(1, 2, -2, -3, -6),
    elapsed_time: extreme(),
    cpu_time: extreme(),
    flops_estimate: extreme(1e308, Number.MAX_VALUE, -1, -1e308, -TINY),
    sent_time: fc.constant(T - 1000),
    received_time: fc.constant(T - 10),
    validate_state: fc.constantFrom("valid", "valid", "invalid", "inconclusive"),
    runtime_outlier: fc.boolean(),
    claimed_credit: extreme(1e15),
  });

const workunitArb = (wuId: number) =>
  fc
    .tuple(
      fc.constantFrom(1, 1e9, 1e30),
      fc.constantFrom(1, 10, 1e30),
      fc.integer({ min: 1, max: 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, k) => resultArb(wuId, k + 1)))),
      extreme(1e15),
    )
    .map(([est, boundFactor, results, canonical]) => ({
      id: wuId,
      app: "a",
      rsc_fpops_est: est,
      rsc_fpops_bound: Math.min(est * boundFactor, 1e30),
      target_nresults: 2,
      canonical_credit: canonical,
      results,
    }));

/** Numbers a read serves that must be finite numbers, never null. */
const NUMERIC = /credit|^expavg|_time$|pfc|scale|^avg|^n$|turnaround|^et/;

function expectFiniteNumbers(value: unknown, where: string, key = ""): void {
  if (typeof value === "number") {
    expect(Number.isFinite(value), `${where}: ${key} = ${value}`).toBe(true);
  } else if (value === null) {
    // Nullable by contract: a result's claim under some modes, and a pass's pfc mode.
    // fair_*: null until the fair policy has learned a level or scale (docs/fair-credit.md).
    // first_credit_time: null until the project's first grant (docs/api.md).
    const allowed =
      key === "claimed_credit" ||
      key === "pfc_mode" ||
      key === "url" ||
      key === "expires_at" ||
      key === "first_credit_time" ||
      key.startsWith("fair_");
    expect(allowed || !NUMERIC.test(key), `${where}: ${key} is null`).toBe(true);
  } else if (Array.isArray(value)) {
    value.forEach((v) => expectFiniteNumbers(v, where, key));
  } else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) expectFiniteNumbers(v, where, k);
  }
}

async function expectNothingNonFiniteStored(projectId: number): Promise<void> {
  const tables = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND (sql LIKE '%`project_id`%' OR name = 'projects')",
  ).all<{ name: string }>();
  for (const { name } of tables.results) {
    const column = name === "projects" ? "id" : "project_id";
    const rows = await env.DB.prepare(`SELECT * FROM "${name}" WHERE ${column} = ?`).bind(projectId).all();
    for (const row of rows.results) {
      for (const [k, v] of Object.entries(row)) {
        if (typeof v === "number") expect(Number.isFinite(v), `${name}.${k} = ${v}`).toBe(true);
      }
    }
  }
}

async function expectReadsFinite(slug: string, token: string): Promise<void> {
  const paths = [
    "",
    "/hosts/1",
    "/hosts/2",
    `/hosts/${Number.MAX_SAFE_INTEGER}`,
    "/users/1",
    "/app-versions",
    "/host-app-versions?host_id=1",
    "/apps",
  ];
  for (const path of paths) {
    const res = await request("GET", `/v1/projects/${slug}${path}`, { token });
    expect(res.status === 200 || res.status === 404, `GET ${path}: ${res.status} ${JSON.stringify(res.body)}`).toBe(true);
    if (res.status === 200) expectFiniteNumbers(res.body, `GET ${path}`);
  }
}

/** An ordinary pass of app "a" under ordinary settings: credited (except under credit modes none and trickle). */
async function expectOrdinaryPassCredited(
  slug: string,
  token: string,
  mode: CreditMode,
  wuId: number,
  policy: CreditPolicy = "boinc",
): Promise<void> {
  const settings = await request("PUT", `/v1/projects/${slug}/apps/a`, {
    token,
    body: { credit_mode: mode, credit_policy: policy, min_avg_pfc: 1, max_granted_credit: 1e7 },
  });
  expect(settings.status, JSON.stringify(settings.body)).toBe(200);
  const result = (id: number, host: number) => ({
    id,
    host_id: host,
    user_id: 7,
    team_id: 0,
    app_version_id: 1,
    elapsed_time: 1000,
    cpu_time: 900,
    flops_estimate: 3e9,
    sent_time: T - 1000,
    received_time: T - 10,
    validate_state: "valid" as const,
    claimed_credit: 5,
  });
  const body = {
    now: T,
    workunits: [
      {
        id: wuId,
        app: "a",
        rsc_fpops_est: 3e12,
        rsc_fpops_bound: 3e13,
        target_nresults: 2,
        canonical_credit: 5,
        results: [result(wuId * 10 + 1, 1), result(wuId * 10 + 2, 2)],
      },
    ],
  };
  const res = await request("POST", `/v1/projects/${slug}/passes`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  for (const r of res.body.workunits[0]!.results) {
    expect(Number.isFinite(r.granted_credit)).toBe(true);
    // none and trickle grant nothing on validation (a trickle app is paid by its trickles).
    if (grantsOnValidation(mode)) expect(r.granted_credit).toBeGreaterThan(0);
    else expect(r.granted_credit).toBe(0);
  }
}

/** Cases tried and 5xx answers seen, over the whole file (SECURITY.md quotes one run). */
const tally = { cases: 0, fiveXX: 0 };

describe("fuzz: poison input never wedges a project", () => {
  const cases: [CreditMode, CreditPolicy][] = [
    ...CREDIT_MODES.map((m) => [m, "boinc"] as [CreditMode, CreditPolicy]),
    ["adaptive", "fair"],
  ];
  for (const [mode, policy] of cases) {
    it(
      `credit_mode ${mode}, policy ${policy}: extreme passes get 2xx/4xx, nothing non-finite is stored or served, the next ordinary pass is credited`,
      { timeout: 300_000 },
      async () => {
        const { slug, token } = await setupProject(`poison-${mode.replace("_", "-")}-${policy}`);
        const projectId = await projectIdOf(slug);
        let nextWu = 1;
        const statuses = new Map<number, number>();
        await fc.assert(
          fc.asyncProperty(appArb, fc.integer({ min: 1, max: 3 }), fc.boolean(), async (app, nWu, emptyPass) => {
            const ids = Array.from({ length: nWu }, () => nextWu++);
            const workunits = emptyPass ? [] : fc.sample(fc.tuple(...ids.map(workunitArb)), { numRuns: 1, seed: ids[0]! })[0]!;
            const settings = await request("PUT", `/v1/projects/${slug}/apps/a`, {
              token,
              body: { credit_mode: mode, credit_policy: policy, ...app },
            });
            // runtime credit needs a cap (422 without one): a refusal, not a failure.
            expect([200, 422], JSON.stringify(settings.body)).toContain(settings.status);
            const res = await request("POST", `/v1/projects/${slug}/passes`, { token, body: { now: T, workunits } });
            tally.cases++;
            if (res.status >= 500) tally.fiveXX++;
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            expect(
              res.status < 500,
              `${res.status} ${JSON.stringify(res.body)} with app ${JSON.stringify(app)} for ${JSON.stringify(workunits)}`,
            ).toBe(true);
            if (res.status === 200) expectFiniteNumbers(res.body, "POST /passes");
            await expectNothingNonFiniteStored(projectId);
            await expectReadsFinite(slug, token);
          }),
          { seed: seed(7101 + cases.findIndex((c) => c[0] === mode && c[1] === policy)), numRuns: runs(25) },
        );
        // Extreme passes were accepted, not just refused.
        expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
        await expectOrdinaryPassCredited(slug, token, mode, nextWu++, policy);
      },
    );
  }

  it(
    "a 1,000-workunit pass of extreme values under every mode: 2xx/4xx, and the next ordinary pass is credited",
    { timeout: 300_000 },
    async () => {
      const { slug, token } = await setupProject("poison-big");
      let nextWu = 1;
      for (const mode of CREDIT_MODES) {
        const ids = Array.from({ length: 1000 }, () => nextWu++);
        const workunits = fc.sample(fc.tuple(...ids.map(workunitArb)), { numRuns: 1, seed: 7200 })[0]!;
        await request("PUT", `/v1/projects/${slug}/apps/a`, {
          token,
          body: { credit_mode: mode, min_avg_pfc: 0, max_granted_credit: 1e15 },
        });
        const res = await request("POST", `/v1/projects/${slug}/passes`, { token, body: { now: T, workunits } });
        tally.cases++;
        if (res.status >= 500) tally.fiveXX++;
        expect(res.status, `${mode}: ${JSON.stringify(res.body).slice(0, 500)}`).toBe(200);
        await expectNothingNonFiniteStored(await projectIdOf(slug));
        await expectOrdinaryPassCredited(slug, token, mode, nextWu++);
      }
      console.log(`poison fuzz: ${tally.cases} cases, ${tally.fiveXX} answered 5xx`);
    },
  );
});
