/**
 * Every stored string has a maximum: plan_class and platform at BOINC's varchar(254), names and a
 * project's name at theirs, with a bounded echo of what was refused.
 */
import { describe, expect, it } from "vitest";
import { TEXT_LIMITS } from "../../src/limits";
import { expectError, issueAt, pass, result, setupProject, workunit } from "../support/api-helpers";
import { ADMIN_TOKEN, request } from "../support/api";

describe("every stored string has a maximum", () => {
  it("plan_class and platform: BOINC's varchar(254), over it 400 naming the field", async () => {
    const { api } = await setupProject("long");
    const max = TEXT_LIMITS.boincName;
    expect(max).toBe(254);
    await api.ok("PUT", "/app-versions/9", { app: "a", platform: "p".repeat(max), plan_class: "c".repeat(max), version_num: 1 });
    for (const field of ["plan_class", "platform"] as const) {
      const body = { app: "a", platform: "linux", plan_class: "", version_num: 1, [field]: "x".repeat(max + 1) };
      const error = expectError(await api.raw("PUT", "/app-versions/10", body), 400, "validation_failed");
      expect(issueAt(error, field).message).toBe(`at most ${max} characters`);
    }
    // A 4.9 MB plan class: refused, and its echo bounded.
    const huge = { app: "a", platform: "linux", plan_class: "c".repeat(4_900_000), version_num: 1 };
    const res = await api.raw("PUT", "/app-versions/11", huge);
    expectError(res, 400, "validation_failed");
    expect(JSON.stringify(res.body).length).toBeLessThan(2000);
    // Names, a project's name; a pass's app is a reference (an unknown one is 404).
    expectError(await api.raw("PUT", "/users/1", { name: "n".repeat(max + 1) }), 400, "validation_failed");
    const long = pass(workunit(1, [result(1)]));
    long.workunits[0]!.app = "a".repeat(max + 1);
    expectError(await api.raw("POST", "/passes", long), 404, "not_found");
    const project = await request("POST", "/v1/projects", {
      token: ADMIN_TOKEN,
      body: { slug: "long-name", name: "n".repeat(TEXT_LIMITS.displayName + 1) },
    });
    expect(issueAt(expectError(project, 400, "validation_failed"), "name").message).toBe(`at most ${TEXT_LIMITS.displayName} characters`);
  });
});
