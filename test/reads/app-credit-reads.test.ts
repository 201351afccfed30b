/**
 * Per-app credit (BOINC's credit_user, credit_team) is written by the hourly fold
 * (src/db/app-credit-queue.ts), and a read adds the runs the fold has not applied yet: a grant
 * shows at once, with the numbers the fold then writes.
 */
import { describe, expect, it } from "vitest";
import { NOW, pass, result, setupProject, workunit } from "../support/api-helpers";
import { env } from "cloudflare:workers";
import { callWith } from "../security/support";
import { request } from "../support/api";
import { runCron } from "../support/cron";
import { type Meter, meteredD1 } from "../support/metered";

// One workunit of 3e12 FLOPs (the helper's rsc_fpops_est) = 3e12 × 200 / 86400e9 credits.
const CREDIT = (3e12 * 200) / 86400e9;
const FOLD = "50 * * * *";

describe("per-app credit reads", () => {
  it("show a grant the fold has not applied yet, as the fold then writes it", async () => {
    const { api } = await setupProject();
    const on = (id: number, host: number) => result(id, { host_id: host, user_id: 72, team_id: 9 });
    // Two workunits for user 72 (two hosts, team 9) in one pass.
    await api.ok("POST", "/passes", pass(workunit(5, [on(51, 72)]), workunit(6, [on(61, 73)])));
    const user = await api.ok("GET", "/users/72");
    expect(user.apps).toHaveLength(1);
    // Inserted at now, both grants see a zero gap: total 2c, RAC (c + c) × ln2 / 7.
    expect(user.apps[0]).toMatchObject({ app: "a", jobs: 2, expavg_time: NOW });
    expect(user.apps[0]!.total_credit).toBeCloseTo(2 * CREDIT, 12);
    expect(user.apps[0]!.expavg_credit).toBeCloseTo((2 * CREDIT * Math.LN2) / 7, 12);
    const team = await api.ok("GET", "/teams/9");
    expect(team.apps).toEqual(user.apps);

    await runCron(FOLD);
    expect((await api.ok("GET", "/users/72")).apps).toEqual(user.apps);
    expect((await api.ok("GET", "/teams/9")).apps).toEqual(team.apps);

    // An hour later one more workunit: the stored row and the pending run, then folded.
    const later = { ...pass(workunit(7, [{ ...on(71, 72), received_time: NOW + 3000 }])), now: NOW + 3600 };
    await api.ok("POST", "/passes", later);
    const pending = await api.ok("GET", "/users/72");
    expect(pending.apps[0]).toMatchObject({ app: "a", jobs: 3, expavg_time: NOW + 3600 });
    expect(pending.apps[0]!.total_credit).toBeCloseTo(3 * CREDIT, 12);
    await runCron(FOLD);
    expect((await api.ok("GET", "/users/72")).apps).toEqual(pending.apps);
  });

  it("anonymous reads (the KV snapshot the minute cron writes) add them too", async () => {
    const { api, slug } = await setupProject();
    await api.ok("POST", "/passes", pass(workunit(5, [result(51, { host_id: 72, user_id: 72 })])));
    await runCron("* * * * *");
    const res = await request("GET", `/v1/projects/${slug}/users/72`);
    expect(res.status).toBe(200);
    expect(res.body.apps).toEqual([expect.objectContaining({ app: "a", jobs: 1, expavg_time: NOW })]);
    expect(res.body.apps).toEqual((await api.ok("GET", "/users/72")).apps);
  });

  it("take apart only the queue rows that name the holder: D1 counts each JSON element read", async () => {
    const { api, slug, token } = await setupProject();
    const rowsRead = async () => {
      const meter: Meter = { rowsRead: 0, kvWrites: 0 };
      const res = await callWith({ DB: meteredD1(env.DB, meter) }, "GET", `/v1/projects/${slug}/users/72`, { token });
      expect(res.status).toBe(200);
      return meter.rowsRead;
    };
    await api.ok("POST", "/passes", pass(workunit(5, [result(51, { host_id: 72, user_id: 72 })])));
    await runCron(FOLD);
    const base = await rowsRead();
    // 20 passes of 10 other users each: 20 queue rows of 10 runs, none for user 72.
    for (let p = 0; p < 20; p++) {
      const wus = Array.from({ length: 10 }, (_, i) => {
        const id = 100 + p * 10 + i;
        return workunit(id, [result(id * 10, { host_id: id, user_id: id })]);
      });
      await api.ok("POST", "/passes", pass(...wus));
    }
    // Each queue row and the one id looked for in it: 20 × 2 more. Taking every row apart
    // would read 20 × (1 + 10) more.
    expect((await rowsRead()) - base).toBeLessThanOrEqual(20 * 2);
  });
});
