/** `npm test` names a failed step's failing tests under its closing table, where a log's tail shows them. */
import { describe, expect, it } from "vitest";
import { failureLines, failureReport } from "../../scripts/test-suites";

// What vitest's default reporter writes for a file with one failed test, colours included.
const FAILED_RUN = [
  "\x1b[32m✓\x1b[39m test/api/passes.test.ts \x1b[2m(12 tests)\x1b[22m 812ms",
  "\x1b[31m❯\x1b[39m test/ingest/owner-carriers.test.ts \x1b[2m(3 tests | 1 failed)\x1b[22m 2301ms",
  "   \x1b[31m×\x1b[39m a user's credit equals its team's after every pass 1200ms",
  "\x1b[31m⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\x1b[39m",
  "\x1b[41m\x1b[1m FAIL \x1b[22m\x1b[49m test/ingest/owner-carriers.test.ts > owners' credit > a user's credit equals its team's after every pass",
  "AssertionError: expected 14.58 to be close to 0",
  " Test Files  1 failed | 1 passed (2)",
].join("\n");

describe("npm test's failure report", () => {
  it("finds the failed test and its FAIL line, without colours, and nothing that passed", () => {
    expect(failureLines(FAILED_RUN)).toEqual([
      "× a user's credit equals its team's after every pass 1200ms",
      "FAIL  test/ingest/owner-carriers.test.ts > owners' credit > a user's credit equals its team's after every pass",
    ]);
  });

  it("lists only the failed steps, and says so when a step's output names no test", () => {
    const report = failureReport([
      { name: "workerd suite", seconds: 1, ok: false, output: FAILED_RUN },
      { name: "lint", seconds: 1, ok: true, output: "" },
      { name: "typecheck", seconds: 1, ok: false, output: "src/x.ts(1,1): error TS2304" },
    ]);
    expect(report).toEqual([
      "workerd suite failed:",
      ...failureLines(FAILED_RUN).map((l) => `  ${l}`),
      "typecheck failed:",
      "  (no failing test named: see its output above)",
    ]);
  });

  it("cuts a long list at 40 lines and says how many more", () => {
    const many = Array.from({ length: 45 }, (_, i) => ` FAIL  test/t${i}.test.ts > case`).join("\n");
    const lines = failureLines(many);
    expect(lines).toHaveLength(41);
    expect(lines.at(-1)).toBe("… and 5 more");
  });
});
