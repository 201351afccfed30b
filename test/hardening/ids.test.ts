/**
 * Issue 24 finding 5: an id beyond Number.MAX_SAFE_INTEGER is refused (400) wherever it is
 * given: path, query or body. 9007199254740993 is 2^53 + 1; as a double it rounds to 2^53,
 * which is another id, so a rounded id would read (or write) someone else's row.
 */
import { describe, expect, it } from "vitest";
import { expectError, setupProject, validPass } from "../support/api-helpers";
import { request } from "../support/api";

const BEYOND = "9007199254740993";

describe("ids beyond 2^53", () => {
  it("a query id (host-app-versions?host_id=2^53+1) → 400, not another host's rows", async () => {
    const p = await setupProject("ids");
    // Host 2^53 (the rounded value) has rows only if a rounded id got through somewhere.
    const err = expectError(await p.api.raw("GET", `/host-app-versions?host_id=${BEYOND}`), 400, "validation_failed");
    expect(err.issues?.[0]?.path).toBe("host_id");
  });

  it("the audit cursor beyond 2^53 → 400", async () => {
    const p = await setupProject("ids");
    expectError(await p.api.raw("GET", `/audit?cursor=${BEYOND}`), 400, "validation_failed");
  });

  it("a path id and an account-manager query user_id beyond 2^53 → 400", async () => {
    const p = await setupProject("ids");
    expectError(await p.api.raw("GET", `/hosts/${BEYOND}`), 400, "validation_failed");
    expectError(await request("GET", `/v1/projects/${p.slug}/users/${BEYOND}`), 400, "validation_failed");
  });

  it("body ids beyond 2^53 (result id, host id, app version id) → 400", async () => {
    const p = await setupProject("ids");
    for (const field of ["id", "host_id", "app_version_id", "user_id"]) {
      const json = JSON.stringify(validPass(1, 10)).replace(
        `"${field}":${field === "id" ? 11 : field === "app_version_id" ? 1 : 10},`,
        `"${field}":${BEYOND},`,
      );
      expect(json).toContain(BEYOND);
      expectError(await p.postRaw("/passes", json), 400, "validation_failed");
    }
    const wu = JSON.stringify(validPass(1, 10)).replace('"id":1,', `"id":${BEYOND},`);
    expect(wu).toContain(BEYOND);
    expectError(await p.postRaw("/passes", wu), 400, "validation_failed");
  });
});
