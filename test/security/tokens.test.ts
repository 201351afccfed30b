/**
 * Token rotation: POST /tokens issues a new token (shown once, stored as SHA-256) and gives the
 * others 24 hours; DELETE revokes at once; the last live token can't be revoked; tokens are
 * never returned after creation. The tokens here are all `manage` ones (a project's first, and
 * POST /tokens without a body); scopes: scopes.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/http/tokens";
import { ADMIN_TOKEN, request, createProject } from "../support/api";
import { expectError } from "../support/api-helpers";

const DAY = 24 * 3600;

async function rotate(slug: string, token: string) {
  const res = await request("POST", `/v1/projects/${slug}/tokens`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; token: string; created_at: number; expires_at: null; others_expire_at: number };
}

const canRead = async (slug: string, token: string) =>
  (await request("GET", `/v1/projects/${slug}/host-app-versions?host_id=1`, { token })).status;

describe("project token rotation", () => {
  it("a new token works at once, the old one keeps working with a deadline 24 h away", async () => {
    const { slug, token: first } = await createProject("rot");
    const issued = await rotate(slug, first);
    expect(issued.token).toMatch(/^cbp_/);
    expect(issued.token).not.toBe(first);
    expect(issued.others_expire_at - issued.created_at).toBeCloseTo(DAY, 6);
    expect(await canRead(slug, issued.token)).toBe(200);
    expect(await canRead(slug, first)).toBe(200);

    const listed = await request("GET", `/v1/projects/${slug}/tokens`, { token: issued.token });
    expect(listed.status).toBe(200);
    expect(listed.body.tokens).toEqual([
      { id: expect.any(Number), created_at: expect.any(Number), expires_at: issued.others_expire_at, scope: "manage" },
      { id: issued.id, created_at: issued.created_at, expires_at: null, scope: "manage" },
    ]);
    // Neither token nor hash is ever returned again.
    const text = JSON.stringify(listed.body);
    for (const secret of [first, issued.token, await sha256Hex(first), await sha256Hex(issued.token)]) expect(text).not.toContain(secret);
  });

  it("only the hash is stored", async () => {
    const { slug, token } = await createProject("hash");
    const issued = await rotate(slug, token);
    const { results } = await env.DB.prepare(
      "SELECT t.token_hash FROM project_tokens t JOIN projects p ON p.id = t.project_id WHERE p.slug = ? ORDER BY t.id",
    )
      .bind(slug)
      .all<{ token_hash: string }>();
    expect(results.map((r) => r.token_hash)).toEqual([await sha256Hex(token), await sha256Hex(issued.token)]);
  });

  it("an old token past its deadline is refused (401)", async () => {
    const { slug, token: first } = await createProject("exp");
    const issued = await rotate(slug, first);
    // 24 h pass: move the old token's deadline into the past.
    await env.DB.prepare("UPDATE project_tokens SET expires_at = ? WHERE token_hash = ?")
      .bind(Date.now() / 1000 - 1, await sha256Hex(first))
      .run();
    expectError(await request("GET", `/v1/projects/${slug}/host-app-versions?host_id=1`, { token: first }), 401, "unauthorized");
    expect(await canRead(slug, issued.token)).toBe(200);
  });

  it("a second rotation does not extend an earlier deadline", async () => {
    const { slug, token: first } = await createProject("rot2");
    const a = await rotate(slug, first);
    await env.DB.prepare("UPDATE project_tokens SET expires_at = expires_at - 3600 WHERE token_hash = ?")
      .bind(await sha256Hex(first))
      .run();
    const before = (await request("GET", `/v1/projects/${slug}/tokens`, { token: a.token })).body.tokens[0]!.expires_at;
    const b = await rotate(slug, a.token);
    const tokens = (await request("GET", `/v1/projects/${slug}/tokens`, { token: b.token })).body.tokens;
    expect(tokens.map((t) => t.expires_at)).toEqual([before, b.others_expire_at, null]);
  });

  it("DELETE revokes a token at once; the project's last live token can't be revoked (409)", async () => {
    const { slug, token: first } = await createProject("rev");
    const issued = await rotate(slug, first);
    const firstId = (await request("GET", `/v1/projects/${slug}/tokens`, { token: first })).body.tokens[0]!.id;
    const revoked = await request("DELETE", `/v1/projects/${slug}/tokens/${firstId}`, { token: issued.token });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: firstId, revoked: true });
    expectError(await request("GET", `/v1/projects/${slug}/tokens`, { token: first }), 401, "unauthorized");
    expectError(await request("DELETE", `/v1/projects/${slug}/tokens/${issued.id}`, { token: issued.token }), 409, "conflict");
    expect(await canRead(slug, issued.token)).toBe(200);
    expectError(await request("DELETE", `/v1/projects/${slug}/tokens/${firstId}`, { token: issued.token }), 404, "not_found");
  });

  it("a token can't see or revoke another project's tokens", async () => {
    const mine = await createProject("mine");
    const theirs = await createProject("theirs");
    const theirId = (await request("GET", `/v1/projects/${theirs.slug}/tokens`, { token: theirs.token })).body.tokens[0]!.id;
    expectError(await request("DELETE", `/v1/projects/${theirs.slug}/tokens/${theirId}`, { token: mine.token }), 403, "forbidden");
    expectError(await request("POST", `/v1/projects/${theirs.slug}/tokens`, { token: mine.token }), 403, "forbidden");
    // Through its own slug, another project's token id is unknown.
    await rotate(mine.slug, mine.token);
    expectError(await request("DELETE", `/v1/projects/${mine.slug}/tokens/${theirId}`, { token: mine.token }), 404, "not_found");
    expect(await canRead(theirs.slug, theirs.token)).toBe(200);
  });

  it("the operator rotates for a project with the admin token (a project that lost its token)", async () => {
    const { slug, token } = await createProject("adm");
    const issued = await rotate(slug, ADMIN_TOKEN);
    expect(await canRead(slug, issued.token)).toBe(200);
    expect(await canRead(slug, token)).toBe(200);
    expectError(await request("POST", `/v1/projects/no-such-project/tokens`, { token: ADMIN_TOKEN }), 404, "not_found");
  });

  it("no token or a made-up one can't rotate (401), and nothing is issued", async () => {
    const { slug, token } = await createProject("anon");
    expectError(await request("POST", `/v1/projects/${slug}/tokens`), 401, "unauthorized");
    expectError(await request("POST", `/v1/projects/${slug}/tokens`, { token: "cbl_forged" }), 401, "unauthorized");
    expect((await request("GET", `/v1/projects/${slug}/tokens`, { token })).body.tokens).toHaveLength(1);
  });
});
