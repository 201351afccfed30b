/**
 * Daily history from every grant: exact buckets (the days' credit adds up to the total),
 * checked on a hand-made two-pass scenario and on a replayed trace spanning several days.
 */
import { describe, expect, it } from "vitest";
import small11 from "../fixtures/traces/small-11.jsonl?raw";
import small11Expected from "../fixtures/traces/small-11.expected.json";
import { dateOfDay } from "../../src/credit/history";
import { expectError, setupProject } from "../support/api-helpers";
import { request } from "../support/api";
import type { components } from "../support/api-types";
import { runCron } from "../support/cron";
import { MONTH_END_NOW, ORDINARY_NOW, withFixedClock } from "../support/clock";
import { replay } from "../support/replay";
import { type TraceExpected, parseTrace, relativeError } from "../support/trace";
import { DAY, daysAgo, decayed, passFor } from "./fixtures";

const publicGet = <P extends string>(slug: string, path: P) => request("GET", `/v1/projects/${slug}${path}`);
/** What a pass granted in all (each pass here credits one user). */
const creditOf = (res: components["schemas"]["PassResponse"]): number =>
  res.workunits.flatMap((w) => w.results).reduce((s, r) => s + r.granted_credit, 0);

describe.each([
  ["at noon mid-month", ORDINARY_NOW],
  ["at 23:59:59 UTC on the last day of a month", MONTH_END_NOW],
])("GET …/users/:id/history %s", (_, now) => {
  withFixedClock(now);
  it("shows each day's credit, the running total and the RAC at each day's end", async () => {
    const { slug, api } = await setupProject("history");
    const who = { host: 10, user: 10 };
    const t1 = daysAgo(6);
    const t2 = daysAgo(4);
    const c1 = creditOf(await api.ok("POST", "/passes", passFor(t1, 1, who)));
    const pair1 = await api.ok("GET", "/users/10");
    const c2 = creditOf(await api.ok("POST", "/passes", passFor(t2, 2, who, 2)));
    const pair2 = await api.ok("GET", "/users/10");
    await runCron();

    const res = await publicGet(slug, `/users/10/history?days=5&end=${dateOfDay(t2 / DAY + 1)}`);
    expect(res.status).toBe(200);
    const day1 = Math.floor(t1 / DAY);
    expect(res.body.days.map((d) => d.date)).toEqual([day1 - 1, day1, day1 + 1, day1 + 2, day1 + 3].map(dateOfDay));
    expect(res.body.days.map((d) => d.credit)).toEqual([0, c1, 0, c2, 0]);
    const totals = res.body.days.map((d) => d.total_credit);
    expect(totals[0]).toBeCloseTo(0, 9); // counted back from the total: zero up to rounding
    expect(totals[1]).toBeCloseTo(c1, 9);
    expect(totals[2]).toBeCloseTo(c1, 9);
    expect(totals[3]).toBeCloseTo(c1 + c2, 9);
    expect(totals[4]).toBe(pair2.total_credit);
    // Each day's RAC: the pair after that day's last pass, decayed to midnight at the day's end.
    const endOf = (day: number) => (day + 1) * DAY;
    const racs = res.body.days.map((d) => d.expavg_credit);
    expect(racs[0]).toBe(0);
    expect(racs[1]).toBeCloseTo(decayed(pair1, endOf(day1)), 9);
    expect(racs[2]).toBeCloseTo(decayed(pair1, endOf(day1 + 1)), 9);
    expect(racs[3]).toBeCloseTo(decayed(pair2, endOf(day1 + 2)), 9);
    expect(racs[4]).toBeCloseTo(decayed(pair2, endOf(day1 + 3)), 9);

    // Default: the 30 days up to today, today's RAC at now.
    const recent = await publicGet(slug, "/users/10/history");
    expect(recent.body.days).toHaveLength(30);
    expect(recent.body.days.at(-1)!.date).toBe(dateOfDay(Math.floor(now / DAY)));
    expect(recent.body.days.at(-1)!.expavg_credit).toBeCloseTo(decayed(pair2, recent.body.as_of), 6);

    // A window older than the snapshot's year comes from D1 with the same numbers.
    const long = await publicGet(slug, "/users/10/history?days=500");
    expect(long.body.days).toHaveLength(500);
    expect(long.body.days.reduce((s: number, d) => s + d.credit, 0)).toBeCloseTo(pair2.total_credit, 9);
  });

  it("rejects a bad window with 400", async () => {
    const { slug, api } = await setupProject("history");
    await api.ok("POST", "/passes", passFor(daysAgo(1), 1, { host: 10, user: 10 }));
    for (const q of ["days=0", "days=3661", "days=abc", "days=1.5", "end=2026-02-30", "end=yesterday"]) {
      expectError(await publicGet(slug, `/users/10/history?${q}`), 400, "validation_failed");
    }
  });
});

/**
 * small-11's passes span 7 hours over two UTC days; its clock stretched 20-fold (around its
 * first pass, so every time keeps its order) spreads them over six days.
 */
const STRETCH = 20;

describe("history over a replayed trace spanning several days (small-11, clock stretched)", () => {
  it(
    "every user's, host's and team's days add up to their total_credit, and the project's to all credit",
    { timeout: 120_000 },
    async () => {
      const times = parseTrace(small11).flatMap((op) => (op.op === "pass" ? [op.now] : []));
      const origin = Math.min(...times);
      const retime = (t: number) => origin + (t - origin) * STRETCH;
      const { api, slug, granted: grants } = await replay(small11, retime);
      const firstDay = Math.floor(origin / DAY);
      const lastDay = Math.floor(retime(Math.max(...times)) / DAY);
      expect(lastDay - firstDay).toBeGreaterThanOrEqual(5);
      const window = `days=${lastDay - firstDay + 1}&end=${dateOfDay(lastDay)}`;
      const expected = small11Expected as TraceExpected;

      const checkSeries = (what: string, days: components["schemas"]["HistoryDay"][], total: number) => {
        const sum = days.reduce((s, d) => s + d.credit, 0);
        expect(relativeError(sum, total), `${what}: days sum ${sum} vs total ${total}`).toBeLessThanOrEqual(1e-9);
        expect(days.at(-1)!.total_credit, what).toBe(total);
        let running = days[0]!.total_credit - days[0]!.credit;
        for (const d of days) {
          running += d.credit;
          expect(Math.abs(d.total_credit - running), `${what} ${d.date}`).toBeLessThanOrEqual(1e-9 * Math.max(1, running));
        }
        expect(
          days.some((d) => d.credit > 0),
          `${what} has credit in the window`,
        ).toBe(true);
      };

      for (const [kind, rows] of [
        ["users", expected.users],
        ["hosts", expected.hosts],
        ["teams", expected.teams],
      ] as const) {
        for (const row of rows) {
          const [{ days }, holder] = [
            await api.ok("GET", `/${kind}/${row.id}/history?${window}`),
            await api.ok("GET", `/${kind}/${row.id}`),
          ];
          checkSeries(`${kind} ${row.id}`, days, holder.total_credit);
        }
      }
      const allCredit = [...grants.values()].reduce((s, c) => s + c, 0);
      const project = (await api.ok("GET", `/history?${window}`)).days;
      const spread = project.filter((d) => d.credit > 0).length;
      expect(spread).toBeGreaterThanOrEqual(3);
      expect(relativeError(project.at(-1)!.total_credit, allCredit)).toBeLessThanOrEqual(1e-9);
      checkSeries("project", project, project.at(-1)!.total_credit);

      // The public answer (KV, after the cron) is the same series.
      await runCron();
      const user = expected.users[0]!;
      const pub = await publicGet(slug, `/users/${user.id}/history?${window}`);
      expect(pub.body.days).toEqual((await api.ok("GET", `/users/${user.id}/history?${window}`)).days);
    },
  );
});
