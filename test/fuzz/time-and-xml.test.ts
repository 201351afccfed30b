/**
 * Properties for issue 24: passes whose `now` lies anywhere from years in the past to beyond
 * the allowed future, in any order, never give a 5xx, never move a RAC clock back and keep
 * totals = grants; XML of any nesting depth, with entity references and cut anywhere, is
 * refused or read with a 4xx at most, its error answer bounded.
 */
import fc from "fast-check";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { setupProject } from "../api/helpers";
import { T0, createAm } from "../am/support";
import { call } from "../support/api";
import { T, passArb } from "./arbitraries";
import { runs, seed } from "./config";
import { expectLedgerConsistent, expectWellFormed, projectIdOf } from "./ledger";

const DAY = 86400;
const serverNow = () => Date.now() / 1000;

/** A `now` relative to the last one: far past, a little past, the same, later, or beyond the allowed future. */
const nowShiftArb = fc.oneof(
  fc.integer({ min: -3 * 365 * DAY, max: -DAY }),
  fc.integer({ min: -3600, max: 0 }),
  fc.integer({ min: 1, max: 30 * DAY }),
  fc.constant("future" as const),
);

/** The RAC clocks that count credit: each host's, user's and the project's, by name. */
async function clocks(projectId: number): Promise<Map<string, number>> {
  const rows = await env.DB.batch([
    env.DB.prepare("SELECT 'host ' || id AS k, expavg_time AS t FROM hosts WHERE project_id = ? AND expavg_credit <> 0").bind(projectId),
    env.DB.prepare("SELECT 'user ' || id AS k, expavg_time AS t FROM users WHERE project_id = ? AND expavg_credit <> 0").bind(projectId),
    env.DB.prepare("SELECT 'project' AS k, expavg_time AS t FROM projects WHERE id = ? AND expavg_credit <> 0").bind(projectId),
  ]);
  return new Map(rows.flatMap((r) => r.results as { k: string; t: number }[]).map((r) => [r.k, r.t]));
}

describe("fuzz: time never runs backwards", () => {
  it("passes with a now in the past or the future: no 5xx, no RAC clock moves back, totals = grants", { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(passArb(12), nowShiftArb), { minLength: 2, maxLength: 6 }), async (steps) => {
        const { slug, api } = await setupProject("fz-time");
        const id = await projectIdOf(slug);
        let last = T;
        let before = await clocks(id);
        for (const [body, shift] of steps) {
          const now = shift === "future" ? Math.ceil(serverNow()) + 3600 : Math.max(1, last + shift);
          const res = await api.raw("POST", "/passes", { ...body, now });
          expectWellFormed(res.status, res.body, `pass at now ${now}`);
          if (shift === "future") expect(res.status).toBe(422);
          if (res.status === 200) {
            expect(res.body.now).toBeGreaterThanOrEqual(now);
            last = Math.max(last, now);
          }
          const after = await clocks(id);
          // No clock that counted credit went back.
          for (const [k, t] of before) expect(after.get(k), k).toBeGreaterThanOrEqual(t);
          before = after;
        }
        await expectLedgerConsistent(id);
      }),
      { numRuns: runs(8), seed: seed(2401) },
    );
  });
});

/** XML nested `depth` deep inside the element `at`, with entity references and cuts. */
const xmlArb = fc.record({
  depth: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 90, max: 110 }), fc.integer({ min: 1000, max: 20_000 })),
  entity: fc.constantFrom("", "&amp;", "&x;", "&#65;", "&#x41;", "&unknown_entity_name;", "&;", "&", "<![CDATA[&y;]]>"),
  cut: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  tag: fc.constantFrom("e", "project", "a-b", "x:y"),
});

function xmlOf(x: { depth: number; entity: string; cut: number | undefined; tag: string }, root: string): string {
  const body = `<${root}>${`<${x.tag}>`.repeat(x.depth)}${x.entity}${`</${x.tag}>`.repeat(x.depth)}</${root}>`;
  return x.cut === undefined ? body : body.slice(0, Math.floor(body.length * x.cut));
}

describe("fuzz: hostile XML", () => {
  it("any depth, entity references and cuts, on both XML routes: no 5xx, errors in shape and at most 8 KB", { timeout: 300_000 }, async () => {
    const am = await createAm("fz-xml");
    const contributor = await call("POST", "/v1/central/contributors", { token: "test-admin-token", body: { name: `fz-xml-${Math.random()}` } });
    await fc.assert(
      fc.asyncProperty(xmlArb, fc.boolean(), async (x, central) => {
        const res = central
          ? await call("POST", "/v1/central/app-versions", { token: contributor.body.token, rawBody: xmlOf(x, "app_versions"), contentType: "application/xml" })
          : await call("POST", `/v1/am/${am.slug}/hosts/4/rpcs?user_id=7&now=${T0}`, { token: am.token, rawBody: xmlOf(x, "acct_mgr_request"), contentType: "application/xml" });
        expectWellFormed(res.status, res.body, `depth ${x.depth} ${x.entity} cut ${x.cut}`);
        expect(JSON.stringify(res.body).length).toBeLessThanOrEqual(8 * 1024);
        if (x.depth > 100 && x.cut === undefined && res.status === 400) expect(["xml_too_deep", "xml_entities", "bad_request"]).toContain(res.body.error.code);
      }),
      { numRuns: runs(60), seed: seed(2402) },
    );
  });
});
