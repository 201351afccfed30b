/**
 * The layering rules of .dependency-cruiser.cjs fire: a fixture tree with one upward import,
 * one route reaching into a job and one cycle gets exactly those, named by their rules, while
 * a job using a service passes; a fixture bridge's rooms likewise. (`npm run lint:layers` applies
 * the same rules to src/ and bridge/, and the cycle rule to bench/ too.)
 */
import { createRequire } from "node:module";
import { cruise } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
const config = createRequire(import.meta.url)(`${root}.dependency-cruiser.cjs`);

/** The fixture tree's `folder` cruised with the project's rules: each violation as "rule: from → to", sorted. */
async function violationsOf(folder: string): Promise<string[]> {
  const result = await cruise([folder], {
    baseDir: `${root}test/fixtures/layering`,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    tsPreCompilationDeps: true,
  });
  if (typeof result.output === "string") throw new Error("expected a cruise result object");
  return result.output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
}

describe("the layering rules", () => {
  it("name each upward import, route-to-job import and cycle of a fixture tree, and nothing else", async () => {
    expect(await violationsOf("src")).toEqual([
      "credit-is-pure: src/credit/engine.ts → src/db/rows.ts",
      // A cycle is reported once, from its first module.
      "no-cycles: src/db/a.ts → src/db/b.ts",
      "routes-not-jobs: src/routes/rescale.ts → src/jobs/rescale.ts",
    ]);
  });

  it("name each of a fixture bridge's upward imports, its reach into src/ and into pack/, and nothing else", async () => {
    expect(await violationsOf("bridge")).toEqual([
      "bridge-database-below-service: bridge/database/reader.ts → bridge/running/loop.ts",
      "bridge-pack-apart: bridge/write-back/writer.ts → bridge/pack/pack.ts",
      "bridge-uses-only-pure-src: bridge/service/client.ts → src/db/rows.ts",
    ]);
  });

  it("give every rule a one-line reason", () => {
    for (const rule of config.forbidden) expect(rule.comment, rule.name).toMatch(/^[^\n]{10,}$/);
  });
});
