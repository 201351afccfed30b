/**
 * Issue 24 finding 2: time never runs backwards. A grant whose `now` is earlier than a row's
 * RAC clock adds its credit with a zero gap (BOINC's clamp) and leaves the clock where it is:
 * no clock of a host, user, team or the project moves back, no recent average is wiped.
 * Each check compares a project posted a past `now` with a control project posted the same
 * bodies at the clock itself: by the rule the two must hold the same RAC numbers.
 */
import { describe, expect, it } from "vitest";
import { SECONDS_PER_DAY } from "../../src/credit/constants";
import { type TestProject, setupProject, validPass } from "../api/helpers";
import { call } from "../support/api";

const T = 1_700_000_000;
const DAY = SECONDS_PER_DAY;

const at = (now: number, wu: number) => ({ ...validPass(wu, 10), now });

async function holder(p: TestProject, path: string) {
  const res = await call("GET", `/v1/projects/${p.slug}${path}`, { token: p.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const clocks = async (p: TestProject) => ({
  host: await holder(p, "/hosts/10"),
  user: await holder(p, "/users/10"),
  project: await holder(p, ""),
});

describe("a pass whose now lies before the rows' clocks", () => {
  it("no RAC clock moves back, RAC equals a pass posted at the clock, and stays equal after the next pass", async () => {
    const past = await setupProject("past");
    const control = await setupProject("past-control");
    for (const p of [past, control]) {
      await p.api.ok("POST", "/passes", at(T, 1));
      await p.api.ok("POST", "/passes", at(T + DAY, 2));
    }
    // 20 days before the host's last grant, against the clock itself.
    await past.api.ok("POST", "/passes", at(T + DAY - 20 * DAY, 3));
    await control.api.ok("POST", "/passes", at(T + DAY, 3));

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
});
