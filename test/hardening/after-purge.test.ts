/**
 * Issue 24 findings 3 and 4: what the retention purge forgot is never applied again.
 * - An error outcome re-posted (with its `now`) after the purge is refused with 410, as a
 *   pass or a trickle message is; before the purge it is replayed.
 * - A result sent after its workunit was credited is inconsistent input (BOINC sends no new
 *   result for a workunit once it has a canonical result): refused with a 422 naming the
 *   workunit, never credited.
 */
import { describe, expect, it } from "vitest";
import { MAX_CLOCK_SKEW_SECONDS } from "../../src/credit/constants";
import { expectError, result, setupProject, workunit } from "../api/helpers";
import { DAY, daysAgo, passFor } from "../reads/fixtures";
import { runCron } from "../support/cron";

const RETENTION_CRON = "50 * * * *";
const who = { host: 10, user: 10 };
const errorReport = (now: number) => ({ now, results: [{ id: 99, host_id: 10, app_version_id: 1, outcome: "error" }] });

describe("an error outcome re-posted after the purge", () => {
  it("is replayed inside the window and refused with 410 once purged; the host's statistics are reset once", { timeout: 60_000 }, async () => {
    const { api } = await setupProject("errors-purge");
    const start = daysAgo(100);
    await api.ok("POST", "/passes", passFor(start, 1, who));
    const first = await api.ok("POST", "/errors", errorReport(start));
    expect(first.results[0]).toMatchObject({ replayed: false, consecutive_valid_reset: true });
    expect((await api.ok("POST", "/errors", errorReport(start))).results[0].replayed).toBe(true);

    // Valid results after the error: consecutive_valid counts again (a second reset would zero it).
    await api.ok("POST", "/passes", passFor(start + 40 * DAY, 2, who));
    // The project's clock is start + 40 days; the cutoff start + 10 days: the error row goes.
    await runCron(RETENTION_CRON, Date.now());
    const before = await api.ok("GET", "/host-app-versions?host_id=10");
    expect(before.host_app_versions[0].consecutive_valid).toBeGreaterThan(0);

    const again = await api.raw("POST", "/errors", errorReport(start));
    const error = expectError(again, 410, "outside_retention_window");
    expect(error.issues?.[0]?.path).toBe("results[0]");
    expect(await api.ok("GET", "/host-app-versions?host_id=10")).toEqual(before);
    // A new error, at the project's clock, is recorded as ever.
    const fresh = await api.ok("POST", "/errors", { ...errorReport(start + 40 * DAY), results: [{ ...errorReport(0).results[0], id: 100 }] });
    expect(fresh.results[0].replayed).toBe(false);
  });
});

describe("a result sent after its workunit was credited", () => {
  it("→ 422 sent_after_credit naming the workunit, nothing written; one sent before (a late result) gets the workunit's credit", async () => {
    const { api } = await setupProject("sent-after");
    const T = daysAgo(5);
    const credited = await api.ok("POST", "/passes", passFor(T, 1, who));
    const hostBefore = await api.ok("GET", "/hosts/10");

    const after = { now: T + DAY, workunits: [workunit(1, [result(13, { sent_time: T + MAX_CLOCK_SKEW_SECONDS + 1, received_time: T + 2 * 3600 })])] };
    const error = expectError(await api.raw("POST", "/passes", after), 422, "sent_after_credit");
    expect(error.message).toContain("workunit 1");
    expect(error.issues?.[0]?.path).toBe("workunits[0].results[0].sent_time");
    expect(await api.ok("GET", "/hosts/10")).toEqual(hostBefore);

    const late = { now: T + DAY, workunits: [workunit(1, [result(14, { sent_time: T - 100, received_time: T + 2 * 3600 })])] };
    const ok = await api.ok("POST", "/passes", late);
    expect(ok.workunits[0].path).toBe("late");
    expect(ok.workunits[0].results[0].granted_credit).toBe(credited.workunits[0].credit);
  });
});
