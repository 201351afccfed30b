/**
 * 503 with Retry-After only when D1 itself is unreachable or overloaded; a constraint violation
 * or any other error is a 500 that names the request id (and says a retry will not help), so a
 * client that retries 503s as told is never stuck in a loop on a bug.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expectError, setupProject, validPass } from "../support/api-helpers";
import { callWith } from "./support";

/** The real D1, except that every batch fails with `message` (the batch is not run). */
function failingBatches(message: string): D1Database {
  return new Proxy(env.DB, {
    get(target, prop) {
      if (prop === "batch") return () => Promise.reject(new Error(message));
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("database errors", () => {
  for (const message of [
    "D1_ERROR: NOT NULL constraint failed: results.granted_credit: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_NOTNULL)",
    "D1_TYPE_ERROR: Type 'object' not supported for value 'x'",
  ]) {
    it(`${message.slice(0, 40)}…: 500 with the request id, no Retry-After`, async () => {
      const { slug, token } = await setupProject("dberr");
      const res = await callWith({ DB: failingBatches(message) }, "POST", `/v1/projects/${slug}/passes`, { token, body: validPass() });
      const error = expectError(res, 500, "internal");
      const id = res.headers!.get("X-Request-Id");
      expect(id).toBeTruthy();
      expect(error.message).toContain(id!);
      expect(res.headers!.get("Retry-After")).toBeNull();
    });
  }

  // A UNIQUE conflict still lost after the retries is a 409 with Retry-After, never a 500
  // (issue 24: one conflict-retry policy, src/http/conflict-retry.ts).
  it("D1_ERROR: UNIQUE constraint failed on every try: 409 concurrent_write with Retry-After", async () => {
    const { slug, token } = await setupProject("dbconflict");
    const message = "D1_ERROR: UNIQUE constraint failed: hosts.project_id, hosts.id: SQLITE_CONSTRAINT";
    const res = await callWith({ DB: failingBatches(message) }, "POST", `/v1/projects/${slug}/passes`, { token, body: validPass() });
    expectError(res, 409, "concurrent_write");
    expect(Number(res.headers!.get("Retry-After"))).toBeGreaterThanOrEqual(1);
  });

  for (const message of [
    "D1_ERROR: Network connection lost.",
    "D1_ERROR: D1 DB is overloaded. Too many requests queued.",
    "D1_ERROR: Internal error in D1 DB storage caused object to be reset.",
  ]) {
    it(`${message.slice(0, 40)}…: 503 unavailable with Retry-After`, async () => {
      const { slug, token } = await setupProject("dbdown");
      const res = await callWith({ DB: failingBatches(message) }, "POST", `/v1/projects/${slug}/passes`, { token, body: validPass() });
      expectError(res, 503, "unavailable");
      expect(Number(res.headers!.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    });
  }
});
