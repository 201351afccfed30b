/**
 * The audit log: every successful write is recorded (who, what, when, request id) and readable
 * by its project; reads and rejected requests are not recorded; every response carries
 * X-Request-Id. A fair re-base's row, with its reason, is in the re-base's own batch.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, request, createProject, rawRequest } from "../support/api";
import { expectError, setupProject, validPass } from "../support/api-helpers";
import { createAm, rpcBody, totals, EINSTEIN } from "../am/support";
import { faultyD1 } from "./faulty-d1";
import { callWith } from "./support";

async function auditOf(slug: string, token: string, query: "" | `?${string}` = "") {
  const res = await request("GET", `/v1/projects/${slug}/audit${query}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const tokenIdOf = async (slug: string, token: string) =>
  (await request("GET", `/v1/projects/${slug}/tokens`, { token })).body.tokens.at(-1)!.id as number;

describe("audit log", () => {
  it("records each successful write with the token id, route, target and the response's request id", async () => {
    const { slug, token, api } = await setupProject("aud");
    const tokenId = await tokenIdOf(slug, token);
    const before = (await auditOf(slug, token)).entries.length;
    const res = await request("POST", `/v1/projects/${slug}/passes`, { token, body: validPass() });
    expect(res.status).toBe(200);
    const requestId = res.headers!.get("X-Request-Id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);

    const { entries } = await auditOf(slug, token);
    expect(entries).toHaveLength(before + 1);
    expect(entries[0]).toEqual({
      id: expect.any(Number),
      at: expect.any(Number),
      actor: `token:${tokenId}`,
      method: "POST",
      route: "/v1/projects/:slug/passes",
      target: `/v1/projects/${slug}/passes`,
      status: 200,
      request_id: requestId,
      // Only a route that asks for a reason (a fair re-base) records one.
      reason: null,
    });
    expect(Math.abs(entries[0]!.at - Date.now() / 1000)).toBeLessThan(600);
    // setupProject's registrations came before, newest first.
    expect(entries.slice(1).map((e) => `${e.method} ${e.route}`)).toContain("PUT /v1/projects/:slug/app-versions/:id");
    await api.ok("GET", "/apps");
  });

  it("reads and rejected writes are not recorded; a rejected write still has a request id", async () => {
    const { slug, token } = await setupProject("aud2");
    const before = (await auditOf(slug, token)).entries;
    await request("GET", `/v1/projects/${slug}/apps`, { token });
    const rejected = await rawRequest("POST", `/v1/projects/${slug}/passes`, { token, body: { workunits: "no" } });
    expectError(rejected, 400, "validation_failed");
    expect(rejected.headers!.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    expectError(await request("POST", `/v1/projects/${slug}/passes`, { body: validPass() }), 401);
    expect((await auditOf(slug, token)).entries).toEqual(before);
  });

  it("uses Cloudflare's cf-ray as the request id", async () => {
    const { slug, token } = await createProject("ray");
    const res = await request("PUT", `/v1/projects/${slug}/apps/a`, { token, body: {}, headers: { "cf-ray": "8e1f2a3b4c5d6e7f-FRA" } });
    expect(res.headers!.get("X-Request-Id")).toBe("8e1f2a3b4c5d6e7f-FRA");
    expect((await auditOf(slug, token)).entries[0]!.request_id).toBe("8e1f2a3b4c5d6e7f-FRA");
    // Something else in cf-ray (here: text meant for a log) is not trusted.
    const odd = await request("GET", "/health", { headers: { "cf-ray": "forged; DROP TABLE projects" } });
    expect(odd.headers!.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("an admin rotation is recorded as admin; a project can't read another's log", async () => {
    const { slug, token } = await createProject("aud3");
    const other = await createProject("aud4");
    await request("POST", `/v1/projects/${slug}/tokens`, { token: ADMIN_TOKEN });
    const { entries } = await auditOf(slug, token);
    expect(entries[0]).toMatchObject({ actor: "admin", method: "POST", route: "/v1/projects/:slug/tokens" });
    expectError(await request("GET", `/v1/projects/${slug}/audit`, { token: other.token }), 403, "forbidden");
    expectError(await request("GET", `/v1/projects/${slug}/audit`), 401, "unauthorized");
    expect((await auditOf(other.slug, other.token)).entries).toEqual([]);
  });

  it("pages newest first with an opaque cursor", async () => {
    const { slug, token } = await createProject("page");
    for (const app of ["a", "b", "c", "d", "e"]) await request("PUT", `/v1/projects/${slug}/apps/${app}`, { token, body: {} });
    const first = await auditOf(slug, token, "?limit=2");
    const second = await auditOf(slug, token, `?limit=2&cursor=${first.next_cursor}`);
    const third = await auditOf(slug, token, `?limit=2&cursor=${second.next_cursor}`);
    const targets = [...first.entries, ...second.entries, ...third.entries].map((e) => e.target.split("/").pop());
    expect(targets).toEqual(["e", "d", "c", "b", "a"]);
    expect(third.next_cursor).toBeNull();
    expectError(await request("GET", `/v1/projects/${slug}/audit?limit=0`, { token }), 400, "validation_failed");
    expectError(await request("GET", `/v1/projects/${slug}/audit?cursor=abc`, { token }), 400, "validation_failed");
  });

  it("account-manager and admin writes are recorded too, outside any project", async () => {
    const am = await createAm("audam");
    const res = await request("POST", `/v1/am/${am.slug}/hosts/42/rpcs`, {
      token: am.token,
      body: rpcBody(Date.now() / 1000 - 60, [totals(EINSTEIN)]),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const row = await env.DB.prepare("SELECT * FROM audit_log WHERE request_id = ?").bind(res.headers!.get("X-Request-Id")).first();
    expect(row).toMatchObject({ project_id: null, actor: expect.stringMatching(/^am:\d+$/), route: "/v1/am/:am/hosts/:host_id/rpcs" });
    const created = await request("POST", "/v1/account-managers", { token: ADMIN_TOKEN, body: { slug: "audited-am", name: "x" } });
    const adminRow = await env.DB.prepare("SELECT actor, route FROM audit_log WHERE request_id = ?")
      .bind(created.headers!.get("X-Request-Id"))
      .first();
    expect(adminRow).toEqual({ actor: "admin", route: "/v1/account-managers" });
  });

  it("a fair re-base and its audit row (with the reason) are one batch: both or neither, never the re-base alone", async () => {
    const { slug, token } = await setupProject("rebase");
    const path = `/v1/projects/${slug}/apps/a/fair-rebase` as const;
    const rowsOf = async (requestId: string | null) =>
      (await env.DB.prepare("SELECT actor, route, status, reason FROM audit_log WHERE request_id = ?").bind(requestId).all()).results;
    const rebasedAt = async () =>
      (await request("GET", `/v1/projects/${slug}/apps`, { token })).body.apps.find((a) => a.name === "a")!.fair_rebased_at;
    const tokenId = await tokenIdOf(slug, token);

    // The batch fails at its last statement (the audit row): neither the re-base nor the row.
    const lost = faultyD1(env.DB, { atStatement: 0 });
    const failed = await callWith({ DB: lost.db }, "POST", path, { token, body: { reason: "first try" } });
    expectError(failed, 503, "unavailable");
    expect(lost.fired).toHaveLength(1);
    expect(await rowsOf(failed.headers!.get("X-Request-Id"))).toEqual([]);
    expect(await rebasedAt()).toBeNull();

    // The batch commits and the answer is lost: the re-base is stored, and so is its reason.
    const committed = faultyD1(env.DB, { afterBatch: true });
    const unanswered = await callWith({ DB: committed.db }, "POST", path, { token, body: { reason: "second try" } });
    expectError(unanswered, 503, "unavailable");
    expect(await rowsOf(unanswered.headers!.get("X-Request-Id"))).toEqual([
      { actor: `token:${tokenId}`, route: "/v1/projects/:slug/apps/:app/fair-rebase", status: 200, reason: "second try" },
    ]);
    expect(await rebasedAt()).toBeGreaterThan(0);

    // A clean re-base: exactly one row (the middleware writes no second one).
    const ok = await request("POST", path, { token, body: { reason: "third try" } });
    expect(ok.status).toBe(200);
    expect(await rowsOf(ok.headers!.get("X-Request-Id"))).toEqual([
      { actor: `token:${tokenId}`, route: "/v1/projects/:slug/apps/:app/fair-rebase", status: 200, reason: "third try" },
    ]);
  });
});
