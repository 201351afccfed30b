/**
 * docs/walkthrough.md is what the service answers: its commands, as written, run twice in a
 * row against a real `wrangler dev` (its own port and empty state), and every sample output
 * in it is compared, field by field and number by number, with the answer it documents
 * (test/docs/walkthrough-samples.ts says how). The second run is compared with the same
 * samples, changed as the doc says a second run answers (secondRun).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suiteNeeds } from "../../scripts/skipped-suites";
import { type WranglerDev, startWranglerDev } from "../browser/wrangler-dev";
import { Prefix, Text, type Value, differences, outputsBySample, parseValues, walkthroughScript } from "./walkthrough-samples";

const doc = readFileSync(new URL("../../docs/walkthrough.md", import.meta.url), "utf8");
const hasJq = spawnSync("jq", ["--version"]).status === 0;

/**
 * The sample as a second run answers it, as the doc says: the pass and the error are replays
 * (`replayed` true, the workunit's `path` "replayed", no `explain`, nothing reset), and host
 * 10's host_app_version shows the first run's error (`consecutive_valid` 0, `fair_error_rate`
 * 0.05).
 */
function secondRun(sample: Value, key = ""): Value {
  if (Array.isArray(sample)) return sample.map((v) => secondRun(v));
  if (sample === null || typeof sample !== "object" || sample instanceof Prefix || sample instanceof Text) {
    const again: Record<string, Value> = { replayed: true, consecutive_valid_reset: false, consecutive_valid: 0, fair_error_rate: 0.05 };
    if (key in again) return again[key]!;
    return key === "path" && sample === "fresh" ? "replayed" : sample;
  }
  const replay = (sample as Record<string, Value>).replayed === false;
  return Object.fromEntries(
    Object.entries(sample)
      .filter(([k]) => !(replay && k === "explain"))
      .map(([k, v]) => [k, secondRun(v, k)]),
  ) as Value;
}

describe.skipIf(!suiteNeeds("the walkthrough's commands and samples", import.meta.url, "jq", hasJq))("docs/walkthrough.md", () => {
  let dev: WranglerDev;
  beforeAll(async () => {
    dev = await startWranglerDev("local-admin-token", 240_000);
  });
  afterAll(async () => dev?.stop());

  const { script, samples } = walkthroughScript(doc);

  it("has samples to check", () => {
    expect(samples.length).toBeGreaterThan(10);
  });

  for (const run of [1, 2]) {
    it(`run ${run}: every command succeeds and answers as its sample says`, () => {
      const now = Date.now() / 1000;
      const result = spawnSync("bash", ["-c", `set -euo pipefail\n${script}`], {
        encoding: "utf8",
        env: { ...process.env, B: dev.base },
        timeout: 120_000,
      });
      expect(result.status, `the walkthrough failed:\n${result.stderr}\n${result.stdout}`).toBe(0);
      const outputs = outputsBySample(result.stdout);
      const problems = samples.flatMap((sample, i) => {
        const expected = parseValues(sample.text).map((v) => (run === 2 ? secondRun(v) : v));
        const actual = parseValues(outputs.get(i) ?? "");
        // The sample shows the last values printed before it (earlier commands may print too).
        const last = actual.slice(-expected.length);
        if (last.length < expected.length) return [`line ${sample.line}: expected ${expected.length} values, got ${actual.length}`];
        return expected.flatMap((v, j) => differences(v, last[j], now).map((d) => `line ${sample.line}: ${d}`));
      });
      expect(problems).toEqual([]);
    });
  }
});
