/**
 * Issue 24 finding 2: time never runs backwards. A pass or trickle batch whose `now` is earlier
 * than the project's clock (the time of its latest grant) is granted at that clock, as BOINC
 * grants at its server's clock: no clock of a host, user, team or the project moves back (a
 * clock set only by a creation time included), no recent average is wiped, and no history
 * bucket is written for a day before the project's current day.
 * Each check compares a project posted a past `now` with a control project posted the same
 * bodies at the clock itself: by the rule the two must hold the same numbers.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SECONDS_PER_DAY } from "../../src/credit/constants";
import { dayOf } from "../../src/credit/history";
import { type TestProject, setupProject, validPass } from "../support/api-helpers";
import { request } from "../support/api";
import { historyDays } from "../support/history";
import { projectIdOf } from "../support/project-id";

const T = 1_700_000_000;
const DAY = SECONDS_PER_DAY;

const at = (now: number, wu: number) => ({ ...validPass(wu, 10), now });

async function holder(p: TestProject, path: string) {
  const res = await request("GET", `/v1/projects/${p.slug}${path}`, { token: p.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const projectId = (p: TestProject): Promise<number> => projectIdOf(p.slug);

/** The days (UTC) that hold credit in any of the project's history buckets, stored or current. */
const creditedDays = async (p: TestProject) =>
  [...new Set((await historyDays(env.DB, await projectId(p))).filter((d) => d.credit !== 0).map((d) => d.day))].sort();

const clocks = async (p: TestProject) => ({
  host: await holder(p, "/hosts/10"),
  user: await holder(p, "/users/10"),
  project: await holder(p, ""),
});

describe("a pass whose now lies before the rows' clocks", () => {
  it("is granted at the clock: no RAC clock moves back, RAC and history equal a pass posted at the clock, and stay equal after the next pass", async () => {
    const past = await setupProject("past");
    const control = await setupProject("past-control");
    for (const p of [past, control]) {
      await p.api.ok("POST", "/passes", at(T, 1));
      await p.api.ok("POST", "/passes", at(T + DAY, 2));
    }
    // 20 days before the host's last grant, against the clock itself.
    const answered = await past.api.ok("POST", "/passes", at(T + DAY - 20 * DAY, 3));
    await control.api.ok("POST", "/passes", at(T + DAY, 3));
    expect(answered.now).toBe(T + DAY);
    expect(await creditedDays(past)).toEqual([dayOf(T), dayOf(T + DAY)]);

    const [p, c] = [await clocks(past), await clocks(control)];
    for (const kind of ["host", "user", "project"] as const) {
      expect(p[kind].expavg_time, kind).toBe(T + DAY);
      expect(p[kind].expavg_credit, kind).toBe(c[kind].expavg_credit);
      expect(p[kind].total_credit, kind).toBe(c[kind].total_credit);
    }

    for (const q of [past, control]) await q.api.ok("POST", "/passes", at(T + 2 * DAY, 4));
    const [p2, c2] = [await clocks(past), await clocks(control)];
    for (const kind of ["host", "user", "project"] as const) expect(p2[kind].expavg_credit, kind).toBe(c2[kind].expavg_credit);
  });

  it("a project's passes in order (a backfill) are each granted at their own now", async () => {
    const p = await setupProject("backfill");
    for (let i = 0; i < 3; i++) {
      const answered = await p.api.ok("POST", "/passes", at(T + i * DAY, i + 1));
      expect(answered.now).toBe(T + i * DAY);
    }
    expect((await holder(p, "/hosts/10")).expavg_time).toBe(T + 2 * DAY);
  });
});

describe("a trickle batch with now: 1", () => {
  it("moves no clock to 1970: the host's and the project's stay at their latest grant", async () => {
    const p = await setupProject("trickle-past");
    await p.api.ok("PUT", "/apps/climate", { credit_mode: "trickle", trickle_max_runtime: 7200 });
    await p.api.ok("PUT", "/hosts/1", { create_time: T - DAY, user_id: 0, p_fpops: 3e9 });
    await p.api.ok("POST", "/trickles", { now: T, messages: [{ id: 1, app: "climate", host_id: 1, runtime: 3600 }] });
    const before = await holder(p, "/hosts/1");
    await p.api.ok("POST", "/trickles", { now: 1, messages: [{ id: 2, app: "climate", host_id: 1, runtime: 3600 }] });
    const after = await holder(p, "/hosts/1");
    expect(after.expavg_time).toBe(T);
    expect((await holder(p, "")).expavg_time).toBe(T);
    // Its credit is added with a zero gap (credit·ln2/7), nothing decayed.
    expect(after.expavg_credit).toBeGreaterThan(before.expavg_credit);
  });

  it("is paid at the project's clock: a host and user with no credit yet start there, not in 1970, and no 1970 history day appears", async () => {
    const [p, control] = [await setupProject("trickle-1970"), await setupProject("trickle-1970-control")];
    for (const q of [p, control]) {
      await q.api.ok("PUT", "/apps/climate", { credit_mode: "trickle", trickle_max_runtime: 7200 });
      await q.api.ok("PUT", "/users/6", { create_time: T - DAY });
      for (const [host, user] of [
        [1, 5],
        [2, 6],
      ])
        await q.api.ok("PUT", `/hosts/${host}`, { create_time: T - DAY, user_id: user, p_fpops: 3e9 });
      await q.api.ok("POST", "/trickles", { now: T, messages: [{ id: 1, app: "climate", host_id: 1, runtime: 3600 }] });
    }
    // Host 2 and user 6 have no credit: their clocks are their creation (T − 1 day).
    const late = {
      messages: [
        { id: 2, app: "climate", host_id: 1, runtime: 3600 },
        { id: 3, app: "climate", host_id: 2, runtime: 3600 },
      ],
    };
    expect((await p.api.ok("POST", "/trickles", { now: 1, ...late })).now).toBe(T);
    await control.api.ok("POST", "/trickles", { now: T, ...late });
    for (const path of ["/hosts/2", "/users/6", "/hosts/1", ""]) {
      const [got, want] = [await holder(p, path), await holder(control, path)];
      expect(got.expavg_time, path).toBe(T);
      expect(got.expavg_credit, path).toBe(want.expavg_credit);
    }
    // Two days on, host 2's RAC decays over two days, not over 54 years.
    const next = { now: T + 2 * DAY, messages: [{ id: 4, app: "climate", host_id: 2, runtime: 3600 }] };
    for (const q of [p, control]) await q.api.ok("POST", "/trickles", next);
    expect((await holder(p, "/hosts/2")).expavg_credit).toBe((await holder(control, "/hosts/2")).expavg_credit);
    expect(await creditedDays(p)).toEqual([dayOf(T), dayOf(T + 2 * DAY)]);
    expect(await historyDays(env.DB, await projectId(p))).toEqual(await historyDays(env.DB, await projectId(control)));
  });
});

describe("a pass that first names a host and user at a past now", () => {
  it("creates them at the project's clock: no history day before the project's", async () => {
    const p = await setupProject("past-new-host");
    await p.api.ok("POST", "/passes", at(T, 1));
    const answered = await p.api.ok("POST", "/passes", { ...validPass(2, 11), now: 6000 });
    expect(answered.now).toBe(T);
    expect((await holder(p, "/hosts/11")).expavg_time).toBe(T);
    expect((await holder(p, "/users/11")).expavg_time).toBe(T);
    expect(await creditedDays(p)).toEqual([dayOf(T)]);
  });
});
