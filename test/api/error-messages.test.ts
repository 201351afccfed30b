/**
 * The error messages a newcomer meets say what to do: an existing project's 409, the admin token
 * on a project route, a time in milliseconds, a missing field, a method the path does not have.
 */
import { describe, expect, it } from "vitest";
import { expectError, issueAt, pass, result, setupProject, workunit } from "../support/api-helpers";
import { ADMIN_TOKEN, createProject, rawRequest, request } from "../support/api";

describe("the messages a newcomer meets", () => {
  it("the 409 of an existing project says how to get a new token", async () => {
    const { slug } = await createProject("again");
    const again = await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug, name: "Again" } });
    const error = expectError(again, 409, "conflict");
    expect(error.message).toContain(`POST /v1/projects/${slug}/tokens with the admin token`);
  });

  it("the admin token on a project route is told so", async () => {
    const { slug } = await setupProject("admin-here");
    const res = await request("GET", `/v1/projects/${slug}/app-versions`, { token: ADMIN_TOKEN });
    const error = expectError(res, 401, "unauthorized");
    expect(error.message).toContain("this is the admin token; project routes need the project's token");
    // Any other unknown token: as before.
    expect(expectError(await request("GET", `/v1/projects/${slug}/app-versions`, { token: "cbp_nope" }), 401).message).toBe(
      "invalid project token",
    );
  });

  it("a time in milliseconds is told times are Unix seconds", async () => {
    const { api } = await setupProject("millis");
    const error = expectError(await api.raw("PUT", "/users/1", { create_time: Date.now() }), 400, "validation_failed");
    expect(issueAt(error, "create_time").message).toContain("times are Unix seconds");
    const late = expectError(await api.raw("POST", "/passes", { ...pass(workunit(1, [result(1)])), now: Date.now() }), 400);
    expect(issueAt(late, "now").message).toContain("times are Unix seconds");
  });

  it("a missing required field says it is required", async () => {
    const { api } = await setupProject("missing");
    const error = expectError(await api.untyped("PUT", "/app-versions/9", { app: "a", platform: "linux", plan_class: "" }), 400);
    expect(issueAt(error, "version_num").message).toBe("required (number), but missing");
  });

  it("a method the path does not have names the methods it has (405, Allow)", async () => {
    const { slug, token } = await setupProject("method");
    const res = await rawRequest("POST", `/v1/projects/${slug}/users/1`, { token, body: { name: "x" } });
    expect(res.status).toBe(405);
    const allow = res.headers?.get("allow") ?? "";
    expect(allow.split(", ").sort()).toEqual(["GET", "PUT"]);
    expect(res.body).toEqual({
      error: { code: "method_not_allowed", message: `POST is not a method of /v1/projects/${slug}/users/1; it has ${allow}` },
    });
    // A path no route has is still 404.
    expectError(await rawRequest("GET", "/v1/nothing-here"), 404, "not_found");
  });
});
