/**
 * A suite that needs a system package (MariaDB, chromium, the BOINC client) is skipped where the
 * package is missing; it must say so where it counts. Each such suite calls `suiteNeeds`, which
 * records a skip in test-artifacts/skipped-suites/; `npm test` starts with
 * `tsx scripts/skipped-suites.ts reset` and ends with `… report`, which prints one line per
 * skipped suite and the package that would run it, and fails when COBBLESTONE_REQUIRE_ALL_SUITES=1
 * (.ci/run sets it: CI installs every package, so a skip there is a fault).
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface SkippedSuite {
  suite: string;
  file: string;
  /** The Debian package that would run it. */
  package: string;
}

/** Where the skips of this `npm test` are recorded (COBBLESTONE_SKIPPED_DIR: another place, for the mechanism's own test). */
export function skippedDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.COBBLESTONE_SKIPPED_DIR ?? fileURLToPath(new URL("../test-artifacts/skipped-suites/", import.meta.url));
}

/**
 * Declares that the suite `suite` of `file` needs the Debian package `pkg`; where it is not
 * `available`, records the skip and warns, with `why` (what is missing and how to install it:
 * by default, that `pkg` is not installed and the apt-get that installs it). Returns
 * `available`, for `describe.skipIf(!…)`.
 */
export function suiteNeeds(
  suite: string,
  file: string,
  pkg: string,
  available: boolean,
  why = `${pkg} is not installed (apt-get install -y ${pkg})`,
): boolean {
  if (available) return true;
  const dir = skippedDir();
  mkdirSync(dir, { recursive: true });
  const record: SkippedSuite = { suite, file: file.replace(/^.*?\/(test\/)/, "$1"), package: pkg };
  writeFileSync(join(dir, `${encodeURIComponent(suite)}.json`), JSON.stringify(record));
  console.warn(`SKIPPED "${suite}": ${why}`);
  return false;
}

export function readSkipped(dir: string = skippedDir()): SkippedSuite[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  return names
    .map((n) => JSON.parse(readFileSync(join(dir, n), "utf8")) as SkippedSuite)
    .sort((a, b) => a.file.localeCompare(b.file) || a.suite.localeCompare(b.suite));
}

/** The summary's lines; the run fails (`failed`) when a suite was skipped and all are required. */
export function skippedReport(skipped: readonly SkippedSuite[], requireAll: boolean): { lines: string[]; failed: boolean } {
  if (skipped.length === 0) return { lines: ["Skipped suites: none (every suite ran)"], failed: false };
  const lines = [
    `Skipped suites: ${skipped.length} (install the package named to run each)`,
    ...skipped.map((s) => `  SKIPPED ${s.file} "${s.suite}": needs ${s.package}`),
  ];
  if (requireAll) lines.push("FAILED: COBBLESTONE_REQUIRE_ALL_SUITES=1 and a suite was skipped");
  return { lines, failed: requireAll };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const command = process.argv[2];
  if (command === "reset") {
    rmSync(skippedDir(), { recursive: true, force: true });
  } else if (command === "report") {
    const { lines, failed } = skippedReport(readSkipped(), process.env.COBBLESTONE_REQUIRE_ALL_SUITES === "1");
    for (const line of lines) (failed ? console.error : console.log)(line);
    process.exitCode = failed ? 1 : 0;
  } else {
    console.error("usage: tsx scripts/skipped-suites.ts reset|report");
    process.exitCode = 2;
  }
}
