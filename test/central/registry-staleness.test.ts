/**
 * A contributor's reports drop out of the plan-class table once not refreshed for 30 days.
 * (Its own file: the run 31 days ahead publishes the newest version of this database.)
 */
import { describe, expect, it } from "vitest";
import { request } from "../support/api";
import { DAY, PLAN_CLASS_CRON, clockNow, issueCentralToken, push, reported, runCron } from "./helpers";

async function cudaStaleRow(): Promise<unknown> {
  const { body } = await request("GET", "/v1/plan-classes");
  return body.plan_classes.find((r) => r.plan_class === "cuda_stale");
}

describe("staleness", () => {
  it("a push counts for 30 days after it was made, and not after", async () => {
    const { token } = await issueCentralToken("quiet project");
    const pushedAt = clockNow();
    const res = await push(
      token,
      JSON.stringify({
        app_versions: [
          reported(1, "x", "", { expavg_time: pushedAt }),
          reported(2, "x", "cuda_stale", { pfc_scale: 0.2, expavg_time: pushedAt }),
        ],
      }),
    );
    expect(res.status).toBe(200);
    await runCron(PLAN_CLASS_CRON, pushedAt + 29 * DAY);
    expect(await cudaStaleRow()).toMatchObject({ scale: 0.2, nprojects: 1 });
    await runCron(PLAN_CLASS_CRON, pushedAt + 31 * DAY);
    expect(await cudaStaleRow()).toBeUndefined();
    const { body } = await request("GET", "/v1/plan-classes");
    expect(body).toMatchObject({ version: pushedAt + 31 * DAY, nsources: 0, plan_classes: [], proc_types: [] });
  });
});
