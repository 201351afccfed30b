/**
 * Bad input to account-manager endpoints: 4xx in the error shape, and nothing booked. Host 9
 * has a baseline of 100 credits; each bad RPC would otherwise book +100.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expectError, issueAt } from "../support/api-helpers";
import { ADMIN_TOKEN, createProject, rawRequest, request } from "../support/api";
import { sha256Hex } from "../../src/http/tokens";
import { EINSTEIN, HOUR, T0, createAm, rpcBody, totals } from "./support";

const good = () => rpcBody(T0 + HOUR, [totals(EINSTEIN, { cpu_ec: 200 })]);

/** A good RPC as JSON, which `edit` may spoil in any way (so it is sent untyped). */
interface Rpc {
  user_id?: number;
  host: Record<string, unknown>;
  projects: Record<string, unknown>[];
}

/** A good RPC spoiled by `edit`, and the issue path it must report. */
const spoiled: [string, (b: Rpc) => void, string][] = [
  ["negative total", (b) => (b.projects[0]!.cpu_ec = -1), "projects[0].cpu_ec"],
  ["NaN as a string", (b) => (b.projects[0]!.cpu_time = "NaN"), "projects[0].cpu_time"],
  ["fractional job count", (b) => (b.projects[0]!.njobs_success = 1.5), "projects[0].njobs_success"],
  ["URL without scheme", (b) => (b.projects[0]!.url = "einstein.example"), "projects[0].url"],
  ["URL with a query", (b) => (b.projects[0]!.url = "https://einstein.example/?x=1"), "projects[0].url"],
  ["not http(s)", (b) => (b.projects[0]!.url = "ftp://einstein.example/"), "projects[0].url"],
  ["one project twice", (b) => b.projects.push({ ...b.projects[0]!, url: "http://EINSTEIN.example" }), "projects[1].url"],
  ["unknown field", (b) => (b.projects[0]!.credit = 5), "projects[0]"],
  ["no user", (b) => delete b.user_id, "user_id"],
  ["negative CPU count", (b) => (b.host.p_ncpus = -4), "host.p_ncpus"],
  ["missing total", (b) => delete b.projects[0]!.gpu_ec, "projects[0].gpu_ec"],
];

describe("account-manager bad input", () => {
  it("every malformed RPC is 400 with the field named, and books nothing", async () => {
    const am = await createAm();
    await am.rpc(9, rpcBody(T0, [totals(EINSTEIN, { cpu_ec: 100 })]));
    for (const [what, edit, path] of spoiled) {
      const body: Rpc = good();
      edit(body);
      const error = expectError(await am.rpcUntyped(9, body), 400, "validation_failed");
      expect(issueAt(error, path), what).toBeDefined();
    }
    // Malformed JSON (a bare NaN is not JSON).
    const raw = JSON.stringify(good()).replace("200", "NaN");
    expectError(await rawRequest("POST", `/v1/am/${am.slug}/hosts/9/rpcs`, { token: am.token, rawBody: raw }), 400);
    // `now` in the future.
    const future = rpcBody(Date.now() / 1000 + 3600, [totals(EINSTEIN, { cpu_ec: 200 })]);
    expectError(await am.rpcRaw(9, future), 422, "now_in_future");
    // A host id that is not a positive integer.
    expectError(await am.rpcRaw(0, good()), 400, "validation_failed");

    // Nothing was booked or logged; the good RPC then books its +100.
    expect((await am.series("totals", { end: "2024-10-04", days: 1 }))[0]!.ec).toBe(0);
    expect(await am.rpcs(9)).toHaveLength(1);
    await am.rpc(9, good());
    expect((await am.series("totals", { end: "2024-10-04", days: 1 }))[0]!.ec).toBe(100);
  });

  it("tokens: admin creates (409 on a taken slug), an RPC needs its own account manager's token", async () => {
    const am = await createAm();
    const other = await createAm();
    const project = await createProject();
    const path = `/v1/am/${am.slug}/hosts/1/rpcs` as const;
    expectError(await request("POST", path, { body: good() }), 401, "unauthorized");
    expectError(await request("POST", path, { body: good(), token: "cbl_nope" }), 401, "unauthorized");
    expectError(await request("POST", path, { body: good(), token: project.token }), 401, "unauthorized");
    expectError(await request("POST", path, { body: good(), token: other.token }), 403, "forbidden");
    expectError(await request("GET", path, { token: other.token }), 403, "forbidden");
    expectError(await request("POST", "/v1/account-managers", { body: { slug: "x", name: "x" }, token: project.token }), 401);
    expectError(
      await request("POST", "/v1/account-managers", { body: { slug: am.slug, name: "again" }, token: ADMIN_TOKEN }),
      409,
      "conflict",
    );
    expectError(await request("POST", "/v1/account-managers", { body: { slug: "Bad Slug", name: "x" }, token: ADMIN_TOKEN }), 400);
    // The token is stored only as its SHA-256.
    const row = await env.DB.prepare("SELECT * FROM account_managers WHERE slug = ?").bind(am.slug).first<Record<string, unknown>>();
    expect(row!.token_hash).toBe(await sha256Hex(am.token));
    expect(Object.values(row!)).not.toContain(am.token);
  });

  it("history reads: unknown account manager 404, bad query 400", async () => {
    const am = await createAm();
    expectError(await request("GET", "/v1/am/no-such-am/totals/history"), 404, "not_found");
    expectError(await request("GET", `/v1/am/${am.slug}/totals/history?days=0`), 400, "validation_failed");
    expectError(await request("GET", `/v1/am/${am.slug}/totals/history?end=2024-13-01`), 400, "validation_failed");
    expectError(await request("GET", `/v1/am/${am.slug}/totals/history?format=xml`), 400, "validation_failed");
    expectError(await request("GET", `/v1/am/${am.slug}/projects/history`), 400, "validation_failed");
    expectError(await request("GET", `/v1/am/${am.slug}/users/7/history?url=nope`), 400, "validation_failed");
  });
});
