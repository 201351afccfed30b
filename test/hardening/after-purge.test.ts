/**
 * Issues 24 findings 3 and 4: what the retention purge forgot is never applied again.
 * - An error outcome re-posted (with its `now`) after the purge is refused with 410, as a
 *   pass or a trickle message is; before the purge it is replayed.
 * - A new result for a workunit that was credited and then purged is refused with 410
 *   naming the workunit, never credited as a fresh workunit; a workunit id that was never
 *   stored (a gap between purged ones: a workunit still running) is credited as ever.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_RESULT_RETENTION_DAYS } from "../../src/config";
import { expectError, result, setupProject, workunit } from "../support/api-helpers";
import { DAY, daysAgo, passFor } from "../reads/fixtures";
import { runCron } from "../support/cron";
import { projectIdOf } from "../support/project-id";

const RETENTION_CRON = "50 * * * *";
const who = { host: 10, user: 10 };
const errorReport = (now: number) => ({ now, results: [{ id: 99, host_id: 10, app_version_id: 1, outcome: "error" as const }] });

describe("an error outcome re-posted after the purge", () => {
  it("is replayed inside the window and refused with 410 once purged; the host's statistics are reset once", async () => {
    const { api } = await setupProject("errors-purge");
    const start = daysAgo(100);
    await api.ok("POST", "/passes", passFor(start, 1, who));
    const first = await api.ok("POST", "/errors", errorReport(start));
    expect(first.results[0]).toMatchObject({ replayed: false, consecutive_valid_reset: true });
    expect((await api.ok("POST", "/errors", errorReport(start))).results[0]!.replayed).toBe(true);

    // Valid results after the error: consecutive_valid counts again (a second reset would zero it).
    await api.ok("POST", "/passes", passFor(start + 40 * DAY, 2, who));
    // The project's clock is start + 40 days; the cutoff start + 10 days: the error row goes.
    await runCron(RETENTION_CRON, Date.now());
    const before = await api.ok("GET", "/host-app-versions?host_id=10");
    expect(before.host_app_versions[0]!.consecutive_valid).toBeGreaterThan(0);

    const again = await api.raw("POST", "/errors", errorReport(start));
    const error = expectError(again, 410, "outside_retention_window");
    expect(error.issues?.[0]?.path).toBe("results[0]");
    expect(await api.ok("GET", "/host-app-versions?host_id=10")).toEqual(before);
    // A new error, at the project's clock, is recorded as ever.
    const fresh = await api.ok("POST", "/errors", {
      ...errorReport(start + 40 * DAY),
      results: [{ ...errorReport(0).results[0]!, id: 100 }],
    });
    expect(fresh.results[0]!.replayed).toBe(false);
  });
});

describe("a new result for a workunit retention purged", () => {
  const late = (wu: number, id: number, sent: number, now: number) => ({
    now,
    workunits: [workunit(wu, [result(id, { host_id: 10, user_id: 10, sent_time: sent, received_time: now - 3600 })])],
  });

  it("→ 410 workunit_purged naming it, nothing written; a never-stored id between purged ones is credited; the record extends run by run", async () => {
    const { slug, api } = await setupProject("wu-purged");
    const id = await projectIdOf(slug);
    const runs = async () =>
      (await env.DB.prepare("SELECT first_id, last_id FROM purged_workunits WHERE project_id = ? ORDER BY first_id").bind(id).all())
        .results;
    const start = daysAgo(100);
    // Workunits 1 and 3 credited at the start; 2 never posted (still running, say).
    await api.ok("POST", "/passes", passFor(start, 1, who));
    await api.ok("POST", "/passes", passFor(start, 3, who));
    // Workunits 4 and 5 twenty days later, 10 forty days later: the clock is start + 40 days,
    // the cutoff start + 40 − 30 days, so 1 and 3 go and 4, 5 and 10 stay.
    await api.ok("POST", "/passes", passFor(start + 20 * DAY, 4, who, 2));
    await api.ok("POST", "/passes", passFor(start + 40 * DAY, 10, who));
    expect(DEFAULT_RESULT_RETENTION_DAYS).toBe(30);
    await runCron(RETENTION_CRON, Date.now());

    // A result of workunit 1 sent 20 days after its credit (after the horizon, start + 10 days).
    const before = await api.ok("GET", "/hosts/10");
    const versionsBefore = await api.ok("GET", "/host-app-versions?host_id=10");
    const refused = expectError(await api.raw("POST", "/passes", late(1, 13, start + 20 * DAY, start + 40 * DAY)), 410, "workunit_purged");
    expect(refused.message).toContain("workunit 1 ");
    expect(refused.issues?.[0]?.path).toBe("workunits[0].results[0]");
    const after = await api.ok("GET", "/hosts/10");
    for (const k of ["total_credit", "expavg_credit", "expavg_time"] as const) expect(after[k], k).toBe(before[k]);
    expect(await api.ok("GET", "/host-app-versions?host_id=10")).toEqual(versionsBefore);
    // Recorded as runs of stored ids: 2 was never stored, so it lies outside.
    expect(await runs()).toEqual([
      { first_id: 1, last_id: 1 },
      { first_id: 3, last_id: 3 },
    ]);

    // Workunit 2 was never stored: its first result is credited as a fresh workunit.
    const fresh = await api.ok("POST", "/passes", late(2, 21, start + 20 * DAY, start + 40 * DAY));
    expect(fresh.workunits[0]!.path).toBe("fresh");
    // Workunit 4, still kept, takes a late result as ever.
    expect((await api.ok("POST", "/passes", late(4, 43, start + 20 * DAY, start + 40 * DAY))).workunits[0]!.path).toBe("late");

    // Thirty more days: 4 and 5 (credited at start + 20 days) go, and extend the run of 3.
    await api.ok("POST", "/passes", passFor(start + 60 * DAY, 20, who));
    await runCron(RETENTION_CRON, Date.now());
    expect(await runs()).toEqual([
      { first_id: 1, last_id: 1 },
      { first_id: 3, last_id: 5 },
    ]);
    expectError(await api.raw("POST", "/passes", late(5, 53, start + 50 * DAY, start + 60 * DAY)), 410, "workunit_purged");
  });
});
