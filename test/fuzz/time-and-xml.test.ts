/**
 * Properties for issue 24: passes and trickle batches whose `now` lies anywhere from years in
 * the past (down to `now: 1`) to beyond the allowed future, in any order, never give a 5xx,
 * are granted at the later of their `now` and the project's clock, never move a RAC clock
 * back, write no history bucket for a day before the project's current day and keep totals =
 * grants; XML of any nesting depth, with entity references and cut anywhere, is refused or
 * read with a 4xx at most, its error answer bounded.
 */
import fc from "fast-check";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { errorOf, setupProject } from "../support/api-helpers";
import { T0, createAm } from "../am/support";
import { dayOf } from "../../src/credit/history";
import { request } from "../support/api";
import { type DayRow, historyDays } from "../support/history";
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
  fc.constant("epoch" as const),
);

/** The `now` a shift names: `epoch` is `now: 1`, `future` an hour beyond the server's clock. */
const nowOf = (shift: number | "future" | "epoch", last: number) =>
  shift === "future" ? Math.ceil(serverNow()) + 3600 : shift === "epoch" ? 1 : Math.max(1, last + shift);

/**
 * After a request the project's clock was `clock` before (0: no grant yet): every history
 * bucket it added to or wrote is of the clock's day or later, and no clock that counted credit
 * went back.
 */
async function expectTimeKept(id: number, before: { clocks: Map<string, number>; days: DayRow[] }, label: string) {
  const clock = before.clocks.get("project") ?? 0;
  const after = { clocks: await clocks(id), days: await historyDays(env.DB, id) };
  for (const [k, t] of before.clocks) expect(after.clocks.get(k), `${label}: ${k}`).toBeGreaterThanOrEqual(t);
  if (clock > 0) {
    const had = new Map(before.days.map((d) => [`${d.subject}/${d.entity_id}/${d.day}`, d.credit]));
    const touched = after.days.filter((d) => had.get(`${d.subject}/${d.entity_id}/${d.day}`) !== d.credit);
    for (const d of touched) expect(d.day, `${label}: ${d.subject} ${d.entity_id}`).toBeGreaterThanOrEqual(dayOf(clock));
  }
  return after;
}

/** The RAC clocks that count credit: each host's, user's and the project's, by name. */
async function clocks(projectId: number): Promise<Map<string, number>> {
  const rows = await env.DB.batch([
    env.DB.prepare("SELECT 'host ' || id AS k, expavg_time AS t FROM hosts WHERE project_id = ? AND expavg_credit <> 0").bind(projectId),
    env.DB.prepare("SELECT 'user ' || id AS k, expavg_time AS t FROM users_now WHERE project_id = ? AND expavg_credit <> 0").bind(
      projectId,
    ),
    env.DB.prepare("SELECT 'project' AS k, expavg_time AS t FROM projects WHERE id = ? AND expavg_credit <> 0").bind(projectId),
  ]);
  return new Map(rows.flatMap((r) => r.results as { k: string; t: number }[]).map((r) => [r.k, r.t]));
}

describe("fuzz: time never runs backwards", () => {
  it(
    "trickle batches with a now in the past, at 1 or in the future: no 5xx, paid at the project's clock or later, no clock back, no history before its day",
    { timeout: 300_000 },
    async () => {
      const messageArb = fc.record({ host: fc.integer({ min: 1, max: 4 }), runtime: fc.integer({ min: 1, max: 20_000 }) });
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.array(messageArb, { minLength: 1, maxLength: 4 }), nowShiftArb), { minLength: 2, maxLength: 6 }),
          async (steps) => {
            const { slug, api } = await setupProject("fz-trickle-time");
            const id = await projectIdOf(slug);
            await api.ok("PUT", "/apps/climate", { credit_mode: "trickle", trickle_max_runtime: 7200 });
            // Hosts 1-4, owned by users 1-2, created a day before the start: clocks set only by creation.
            for (const host of [1, 2, 3, 4])
              await api.ok("PUT", `/hosts/${host}`, { create_time: T - DAY, user_id: 1 + (host % 2), p_fpops: 3e9 });
            let last = T;
            let nextId = 1;
            let before = { clocks: await clocks(id), days: await historyDays(env.DB, id) };
            for (const [messages, shift] of steps) {
              const now = nowOf(shift, last);
              const body = { now, messages: messages.map((m) => ({ id: nextId++, app: "climate", host_id: m.host, runtime: m.runtime })) };
              const res = await api.raw("POST", "/trickles", body);
              expectWellFormed(res.status, res.body, `trickles at now ${now}`);
              expect(res.status).toBe(shift === "future" ? 422 : 200);
              if (res.status === 200) {
                expect(res.body.now).toBe(Math.max(now, before.clocks.get("project") ?? 0));
                last = Math.max(last, now);
              }
              before = await expectTimeKept(id, before, `trickles at now ${now}`);
            }
            // Totals = payments: each host's and the project's total is the sum of its paid messages.
            const paid = await env.DB.prepare(
              `SELECT h.id, h.total_credit AS total, (SELECT total(t.credit) FROM trickles t WHERE t.project_id = h.project_id AND t.host_id = h.id) AS paid
           FROM hosts h WHERE h.project_id = ?`,
            )
              .bind(id)
              .all<{ id: number; total: number; paid: number }>();
            for (const h of paid.results) expect(h.total, `host ${h.id}`).toBeCloseTo(h.paid, 9);
            const project = await env.DB.prepare("SELECT total_credit AS t FROM projects WHERE id = ?").bind(id).first<number>("t");
            expect(project).toBeCloseTo(
              paid.results.reduce((sum, h) => sum + h.paid, 0),
              9,
            );
          },
        ),
        { numRuns: runs(6), seed: seed(2403) },
      );
    },
  );

  it(
    "passes with a now in the past, at 1 or in the future: no 5xx, granted at the project's clock or later, no clock back, no history before its day, totals = grants",
    { timeout: 300_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(passArb(12), nowShiftArb), { minLength: 2, maxLength: 6 }), async (steps) => {
          const { slug, api } = await setupProject("fz-time");
          const id = await projectIdOf(slug);
          let last = T;
          let before = { clocks: await clocks(id), days: await historyDays(env.DB, id) };
          for (const [body, shift] of steps) {
            const now = nowOf(shift, last);
            const res = await api.raw("POST", "/passes", { ...body, now });
            expectWellFormed(res.status, res.body, `pass at now ${now}`);
            if (shift === "future") expect(res.status).toBe(422);
            const clock = before.clocks.get("project") ?? 0;
            if (res.status === 200) {
              expect(res.body.now).toBe(Math.max(now, clock));
              last = Math.max(last, now);
            }
            before = await expectTimeKept(id, before, `pass at now ${now}`);
          }
          await expectLedgerConsistent(id);
        }),
        { numRuns: runs(8), seed: seed(2401) },
      );
    },
  );
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
  it(
    "any depth, entity references and cuts, on both XML routes: no 5xx, errors in shape and at most 8 KB",
    { timeout: 300_000 },
    async () => {
      const am = await createAm("fz-xml");
      const contributor = await request("POST", "/v1/central/contributors", {
        token: "test-admin-token",
        body: { name: `fz-xml-${Math.random()}` },
      });
      await fc.assert(
        fc.asyncProperty(xmlArb, fc.boolean(), async (x, central) => {
          const res = central
            ? await request("POST", "/v1/central/app-versions", {
                token: contributor.body.token,
                xml: xmlOf(x, "app_versions"),
              })
            : await request("POST", `/v1/am/${am.slug}/hosts/4/rpcs?user_id=7&now=${T0}`, {
                token: am.token,
                xml: xmlOf(x, "acct_mgr_request"),
              });
          expectWellFormed(res.status, res.body, `depth ${x.depth} ${x.entity} cut ${x.cut}`);
          expect(JSON.stringify(res.body).length).toBeLessThanOrEqual(8 * 1024);
          if (x.depth > 100 && x.cut === undefined && res.status === 400)
            expect(["xml_too_deep", "xml_entities", "bad_request"]).toContain(errorOf(res).code);
        }),
        { numRuns: runs(60), seed: seed(2402) },
      );
    },
  );
});
