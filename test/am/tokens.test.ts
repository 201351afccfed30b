/**
 * Account-manager tokens rotate and revoke like project tokens, by the operator only: a
 * rotation's new token works at once and the old one during the grace; a revocation stops
 * both at once; tokens carry the account-manager prefix.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ROTATION_GRACE_SECONDS } from "../../src/limits";
import { ADMIN_TOKEN, request, createProject } from "../support/api";
import { expectError } from "../support/api-helpers";
import { createAm } from "./support";

/** A route that needs the account manager's own token. */
const rpcs = (slug: string, token: string) => request("GET", `/v1/am/${slug}/hosts/1/rpcs`, { token });

describe("account-manager tokens", () => {
  it("a new account manager's token says what it opens", async () => {
    const am = await createAm("amt");
    expect(am.token).toMatch(/^cbm_/);
  });

  it("rotate: the new token works at once, the old one until the grace ends", async () => {
    const am = await createAm("amr");
    const res = await request("POST", `/v1/account-managers/${am.slug}/token`, { token: ADMIN_TOKEN });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.token).toMatch(/^cbm_/);
    expect(res.body.token).not.toBe(am.token);
    expect((await rpcs(am.slug, res.body.token)).status).toBe(200);
    expect((await rpcs(am.slug, am.token)).status).toBe(200);
    // The grace is 24 h from the rotation (the server's clock is the wall clock).
    expect(res.body.previous_expires_at! - Date.now() / 1000).toBeGreaterThan(ROTATION_GRACE_SECONDS - 60);
    expect(res.body.previous_expires_at! - Date.now() / 1000).toBeLessThanOrEqual(ROTATION_GRACE_SECONDS);
    // The grace over (moved into the past), the old token stops; the new one goes on.
    await env.DB.prepare("UPDATE account_managers SET previous_expires_at = 1 WHERE slug = ?").bind(am.slug).run();
    expectError(await rpcs(am.slug, am.token), 401, "unauthorized");
    expect((await rpcs(am.slug, res.body.token)).status).toBe(200);
  });

  it("revoke: every token of the account manager stops at once; a rotation then issues one that works", async () => {
    const am = await createAm("amv");
    const rotated = await request("POST", `/v1/account-managers/${am.slug}/token`, { token: ADMIN_TOKEN });
    const revoked = await request("DELETE", `/v1/account-managers/${am.slug}/token`, { token: ADMIN_TOKEN });
    expect(revoked.body).toEqual({ slug: am.slug, revoked: true });
    expectError(await rpcs(am.slug, am.token), 401);
    expectError(await rpcs(am.slug, rotated.body.token), 401);
    const fresh = await request("POST", `/v1/account-managers/${am.slug}/token`, { token: ADMIN_TOKEN });
    expect(fresh.body.previous_expires_at).toBeNull();
    expect((await rpcs(am.slug, fresh.body.token)).status).toBe(200);
    expectError(await rpcs(am.slug, rotated.body.token), 401);
  });

  it("only the operator rotates or revokes: the account manager's own token and a project's are refused", async () => {
    const am = await createAm("amo");
    const project = await createProject("amo");
    for (const token of [am.token, project.token]) {
      expectError(await request("POST", `/v1/account-managers/${am.slug}/token`, { token }), 401, "unauthorized");
      expectError(await request("DELETE", `/v1/account-managers/${am.slug}/token`, { token }), 401, "unauthorized");
    }
    expect((await rpcs(am.slug, am.token)).status).toBe(200);
    expectError(await request("POST", `/v1/account-managers/no-such-am/token`, { token: ADMIN_TOKEN }), 404, "not_found");
  });
});
