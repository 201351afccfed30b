/**
 * A user's page shows the account-manager credit of the user's linked hosts: estimated by the
 * clients, and confirmed by the credit the project granted once the daily reconciliation ran.
 *   host 501 (AM host 11): estimated 300, granted 3 × 100 → confirmed 300
 *   host 502 (AM host 12): estimated 2,000, granted 100 → confirmed 100
 */
import { describe, expect, it } from "vitest";
import { dateOfDay, dayOf } from "../../src/credit/history";
import { formatCredit } from "../../src/web/format";
import { result, workunit } from "../support/api-helpers";
import { HOUR, createAm, rpcBody, totals } from "../am/support";
import { daysAgo } from "../reads/fixtures";
import { ADMIN_TOKEN, request, typedClient } from "../support/api";
import { runCron } from "../support/cron";
import { firstData, getPage, section } from "./html";

const granted = (id: number, hostId: number, credit: number) =>
  workunit(id, [result(id * 10, { host_id: hostId, user_id: 7 })], { canonical_credit: credit, target_nresults: 1 });

describe("account-manager credit on a user's page", () => {
  it("estimated at once; confirmed after the daily reconciliation; nothing for a user without linked hosts", async () => {
    const url = `https://am-${Math.random().toString(36).slice(2, 8)}.example/`;
    const slug = `am-web-${Math.random().toString(36).slice(2, 8)}`;
    const created = await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug, name: "AM Project", url } });
    expect(created.status).toBe(201);
    const project = typedClient(slug, created.body.token);
    await project.ok("PUT", "/apps/a", { credit_mode: "fixed" });
    await project.ok("PUT", "/app-versions/1", { app: "a", platform: "linux", plan_class: "", version_num: 1 });
    const am = await createAm("web");
    await project.ok("PUT", "/hosts/501", { user_id: 7, account_manager: am.slug, am_host_id: 11 });
    await project.ok("PUT", "/hosts/502", { user_id: 7, account_manager: am.slug, am_host_id: 12 });

    const T = daysAgo(2);
    for (const [host, ec] of [
      [11, 300],
      [12, 2000],
    ] as const) {
      await am.rpc(host, rpcBody(T, [totals(url)], { user_id: 70 }));
      await am.rpc(host, rpcBody(T + HOUR, [totals(url, { cpu_ec: ec })], { user_id: 70 }));
    }
    await project.ok("POST", "/passes", {
      now: T + 2 * HOUR,
      workunits: [granted(1, 501, 100), granted(2, 501, 100), granted(3, 501, 100), granted(4, 502, 100), granted(5, 503, 100)],
    });
    await runCron();

    const before = await getPage(`/p/${slug}/users/7`);
    expect(before.status).toBe(200);
    const table = section(before.html, "am-credit");
    expect(table).toContain(`AM ${am.slug}`);
    expect(firstData(table, "estimated")).toEqual({ value: 2300, text: formatCredit(2300) });
    expect(table).toContain("not yet");

    // The cron of the next day, 00:30 UTC, reconciles the day of the bookings.
    await runCron("30 0 * * *", ((dayOf(T) + 1) * 86400 + 1800) * 1000);
    const q = { end: dateOfDay(dayOf(T)), days: 1, url };
    const confirmed = (await am.series("hosts/11", q))[0]!.confirmed_ec! + (await am.series("hosts/12", q))[0]!.confirmed_ec!;
    expect(confirmed).toBe(400);
    const after = await getPage(`/p/${slug}/users/7`, { "If-None-Match": before.headers.get("ETag")! });
    expect(after.status).toBe(200); // the same snapshot, but new account-manager numbers
    expect(firstData(section(after.html, "am-credit"), "confirmed")).toEqual({ value: 400, text: "400" });

    // User 8 (host 503) has no linked host: no such section.
    await project.ok("PUT", "/users/8", {});
    await project.ok("PUT", "/hosts/503", { user_id: 8 });
    const other = await getPage(`/p/${slug}/users/8`);
    expect(other.status).toBe(200);
    expect(other.html).not.toContain('id="am-credit"');
  });
});
