/**
 * A suite skipped for a missing system package is named, with the package, at the end of
 * `npm test`, and fails the run where every suite is required (.ci/run).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readSkipped, suiteNeeds } from "../../scripts/skipped-suites";

const root = new URL("../../", import.meta.url);
const script = new URL("scripts/skipped-suites.ts", root).pathname;
const tsx = new URL("node_modules/.bin/tsx", root).pathname;
const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));

let dir: string | undefined;
afterEach(() => {
  delete process.env.COBBLESTONE_SKIPPED_DIR;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs `tsx scripts/skipped-suites.ts <command>` as npm test does, with the records in `dir`. */
function run(command: string, env: Record<string, string> = {}) {
  const { COBBLESTONE_REQUIRE_ALL_SUITES: _ignored, ...base } = process.env;
  return spawnSync(tsx, [script, command], { encoding: "utf8", env: { ...base, COBBLESTONE_SKIPPED_DIR: dir!, ...env } });
}

describe("skipped suites", () => {
  it("npm test resets the records first and reports them last; .ci/run requires every suite", () => {
    const steps = pkg.scripts.test.split(" && ");
    expect(steps[0]).toBe("tsx scripts/skipped-suites.ts reset");
    expect(steps.at(-1)).toBe("tsx scripts/skipped-suites.ts report");
    expect(readFileSync(new URL(".ci/run", root), "utf8")).toMatch(/^COBBLESTONE_REQUIRE_ALL_SUITES=1 npm test$/m);
  });

  it("a suite whose package is missing is named with its package; the report fails when all are required", () => {
    dir = mkdtempSync(join(tmpdir(), "cobblestone-skipped-"));
    process.env.COBBLESTONE_SKIPPED_DIR = dir;
    expect(suiteNeeds("a suite that runs", "file:///repo/test/bridge/x.test.ts", "mariadb-server", true)).toBe(true);
    expect(readSkipped(dir)).toEqual([]);
    expect(run("report").stdout.trim()).toBe("Skipped suites: none (every suite ran)");

    expect(suiteNeeds("the bridge needs a database", "file:///repo/test/bridge/x.test.ts", "mariadb-server", false)).toBe(false);
    const line = '  SKIPPED test/bridge/x.test.ts "the bridge needs a database": needs mariadb-server';

    const lenient = run("report");
    expect(lenient.status).toBe(0);
    expect(lenient.stdout.split("\n")).toEqual(["Skipped suites: 1 (install the package named to run each)", line, ""]);

    const strict = run("report", { COBBLESTONE_REQUIRE_ALL_SUITES: "1" });
    expect(strict.status).toBe(1);
    expect(strict.stderr).toContain(line);
    expect(strict.stderr).toContain("FAILED: COBBLESTONE_REQUIRE_ALL_SUITES=1 and a suite was skipped");

    // The next npm test starts clean.
    execFileSync(tsx, [script, "reset"], { env: { ...process.env, COBBLESTONE_SKIPPED_DIR: dir } });
    expect(run("report", { COBBLESTONE_REQUIRE_ALL_SUITES: "1" }).status).toBe(0);
  });
});
