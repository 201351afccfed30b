/**
 * A deployment without ADMIN_TOKEN refuses every admin route with 503 `admin_disabled` and
 * says what to set, whatever token is sent; nothing is created.
 */
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, callRow, createProject } from "../support/api";
import { expectError } from "../support/api-helpers";
import { callWith, callWithRaw } from "./support";
import { dbState } from "./db-state";

const NO_ADMIN = { ADMIN_TOKEN: undefined };

describe("a deployment without ADMIN_TOKEN", () => {
  // Each sent with each token below.
  const adminRoutes = [
    callRow("POST", "/v1/projects", undefined, { slug: "nope", name: "Nope" }),
    callRow("POST", "/v1/account-managers", undefined, { slug: "nope", name: "Nope" }),
    callRow("POST", "/v1/central/contributors", undefined, { name: "Nope" }),
    callRow("GET", "/v1/central/contributors", undefined),
    callRow("DELETE", "/v1/central/contributors/1", undefined),
  ];
  for (const { method, path, body } of adminRoutes) {
    for (const token of [undefined, ADMIN_TOKEN, "anything"]) {
      it(`${method} ${path} with ${token === undefined ? "no token" : token === ADMIN_TOKEN ? "the old admin token" : "a made-up token"} → 503 admin_disabled`, async () => {
        const before = await dbState();
        const res = await callWithRaw(NO_ADMIN, method, path, { token, body });
        const error = expectError(res, 503, "admin_disabled");
        expect(error.message).toMatch(/ADMIN_TOKEN is not configured/);
        expect(await dbState()).toEqual(before);
      });
    }
  }

  it("project routes keep working, and the admin can't rotate a project's token", async () => {
    const { slug, token } = await createProject("noadm");
    expect((await callWith(NO_ADMIN, "PUT", `/v1/projects/${slug}/apps/a`, { token, body: {} })).status).toBe(200);
    // The old admin token is now just an unknown token.
    expectError(await callWith(NO_ADMIN, "POST", `/v1/projects/${slug}/tokens`, { token: ADMIN_TOKEN }), 401, "unauthorized");
    expect((await callWith(NO_ADMIN, "POST", `/v1/projects/${slug}/tokens`, { token })).status).toBe(201);
  });
});
