/** Daily series: running totals when days are booked out of order, and CSV for spreadsheets. */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { request } from "../support/api";
import { EINSTEIN, HOUR, T0, createAm, rpcBody, totals } from "./support";

const DAY = 86_400;

describe("account-manager history", () => {
  it("a delta booked on an earlier day (another host's clock) raises the later running totals", async () => {
    const am = await createAm();
    // Host 1 books +10 on 2024-10-05 first.
    await am.rpc(1, rpcBody(T0 + DAY, [totals(EINSTEIN)]));
    await am.rpc(1, rpcBody(T0 + DAY + HOUR, [totals(EINSTEIN, { cpu_ec: 10 })]));
    // Then host 2 (user 8) books +5 on 2024-10-04.
    await am.rpc(2, rpcBody(T0, [totals(EINSTEIN)], { user_id: 8 }));
    await am.rpc(2, rpcBody(T0 + HOUR, [totals(EINSTEIN, { cpu_ec: 5 })], { user_id: 8 }));
    // Totals: 2024-10-04 +5 (total 5), 2024-10-05 +10 (total 5 + 10 = 15).
    const days = await am.series("totals", { end: "2024-10-05", days: 2 });
    expect(days.map((d) => [d.date, d.ec, d.total_ec])).toEqual([
      ["2024-10-04", 5, 5],
      ["2024-10-05", 10, 15],
    ]);
    // Each user's own series is unaffected by the other's.
    expect((await am.series("users/7", { end: "2024-10-05", days: 2 })).map((d) => d.total_ec)).toEqual([0, 10]);
    expect((await am.series("users/8", { end: "2024-10-05", days: 2 })).map((d) => d.total_ec)).toEqual([5, 5]);
  });

  it("?format=csv: text/csv, a header and one line per day, the same numbers as the JSON", async () => {
    const am = await createAm();
    await am.rpc(3, rpcBody(T0, [totals(EINSTEIN)]));
    // +250 credits, 1,800 s of CPU, 2 jobs on 2024-10-04.
    await am.rpc(3, rpcBody(T0 + HOUR, [totals(EINSTEIN, { cpu_ec: 250, cpu_time: 1800, njobs_success: 2 })]));
    const res = await exports.default.fetch(`http://cobblestone.test/v1/am/${am.slug}/users/7/history?format=csv&end=2024-10-05&days=2`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/csv/);
    expect(await res.text()).toBe(
      [
        "date,ec,cpu_time,gpu_time,njobs_success,njobs_error,total_ec,claimed_ec,confirmed_ec,factor,window_granted,window_estimated",
        "2024-10-04,250,1800,0,2,0,250,250,,,,",
        "2024-10-05,0,0,0,0,0,250,0,,,,",
        "",
      ].join("\r\n"),
    );
  });

  it("the OpenAPI document declares the account-manager routes, the AM token and the CSV answer", async () => {
    const { body: doc } = await request("GET", "/openapi.json");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/v1/account-managers",
        "/v1/am/{am}/hosts/{host_id}/rpcs",
        "/v1/am/{am}/users/{id}/history",
        "/v1/am/{am}/hosts/{id}/history",
        "/v1/am/{am}/projects/history",
        "/v1/am/{am}/totals/history",
      ]),
    );
    expect(doc.paths["/v1/am/{am}/hosts/{host_id}/rpcs"]!.post!.security).toEqual([{ amToken: [] }]);
    expect(Object.keys(doc.paths["/v1/am/{am}/totals/history"]!.get!.responses["200"]!.content!)).toEqual(["application/json", "text/csv"]);
    expect(doc.components.schemas.PutHost!.properties).toHaveProperty("am_host_id");
  });
});
