/** `/central`: the plan-class scale table as a page, with the API's numbers. */
import { describe, expect, it } from "vitest";
import { PLAN_CLASS_CRON, clockNow, issueCentralToken, push, reported, runCron } from "../central/helpers";
import { request } from "../support/api";
import { formatStatistic } from "../../src/web/format";
import { dataOf, getPage, section } from "./html";

describe("/central", () => {
  it("before any table: says BOINC's default applies", async () => {
    const page = await getPage("/central");
    expect(page.status).toBe(200);
    expect(page.html).toContain('id="no-table"');
    expect(page.html).toContain("0.1 applies");
  });

  it("shows the published table with the API's numbers, and when it was computed", async () => {
    const T = clockNow();
    const a = await issueCentralToken("Project A");
    const pushed = await push(
      a.token,
      JSON.stringify({
        project: "alpha",
        app_versions: [
          reported(1, "x", "", { pfc_scale: 1.0, expavg_credit: 100, expavg_time: T }),
          reported(2, "x", "cuda_reg", { pfc_scale: 0.2, expavg_credit: 300, expavg_time: T }),
        ],
      }),
    );
    expect(pushed.status).toBe(200);
    await runCron(PLAN_CLASS_CRON, T);

    const table = (await request("GET", "/v1/plan-classes")).body;
    const page = await getPage("/central");
    expect(page.status).toBe(200);
    const rows = section(page.html, "plan-classes");
    expect(rows).toContain("<td>cuda_reg</td>");
    expect(dataOf(rows, "scale").map((d) => d.value)).toEqual(table.plan_classes.map((r) => r.scale));
    expect(dataOf(rows, "scale").map((d) => d.text)).toEqual(table.plan_classes.map((r) => formatStatistic(r.scale)));
    expect(dataOf(section(page.html, "proc-types"), "scale").map((d) => d.value)).toEqual(table.proc_types.map((r) => r.scale));
    expect(page.html).toContain(`data-snapshot-time="${T}"`);

    const etag = page.headers.get("ETag")!;
    expect(page.headers.get("Cache-Control")).toBe("public, max-age=60");
    expect((await getPage("/central", { "If-None-Match": etag })).status).toBe(304);
  });
});
