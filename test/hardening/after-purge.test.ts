/**
 * Issue 24 finding 3: what the retention purge forgot is never applied again. An error
 * outcome re-posted (with its `now`) after the purge is refused with 410, as a pass or a
 * trickle message is; before the purge it is replayed.
 */
import { describe, expect, it } from "vitest";
import { expectError, setupProject } from "../api/helpers";
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
