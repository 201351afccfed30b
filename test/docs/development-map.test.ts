/**
 * docs/development.md's map of the repository (its first code block) names only files that
 * exist: each entry (`src/`, `  db/`, `  index.ts`, …) is a path, and each file its
 * description names is found there. A name with a slash is a path from the root; a bare name
 * is found in the entry's folder (or below it) or at the root. A URL path (`/openapi.json`)
 * is not a file.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "./markdown";

const FILE_NAME = /(?<![\w./-])[\w-][\w./-]*\.(?:ts|tsx|js|mjs|cjs|json|jsonc|md|html|sql)\b/g;

/** The map's entries: each with its path from the root and the file names its lines give. */
export function mapEntries(markdown: string): { path: string; names: string[] }[] {
  const block = /^```\n([\s\S]*?)^```/m.exec(markdown)?.[1] ?? "";
  const entries: { path: string; names: string[] }[] = [];
  let top = "";
  for (const line of block.split("\n")) {
    const entry = /^( {0,2})(\S+)(?:\s{2,}|$)(.*)$/.exec(line);
    const described = entry ? entry[3]! : line;
    if (entry) {
      const path = entry[1] === "" ? entry[2]! : `${top}${entry[2]!}`;
      if (entry[1] === "") top = entry[2]!.endsWith("/") ? entry[2]! : "";
      entries.push({ path, names: [] });
    }
    const current = entries.at(-1);
    if (current) current.names.push(...[...described.matchAll(FILE_NAME)].map((m) => m[0]));
  }
  return entries;
}

function foundUnder(dir: string, name: string): boolean {
  if (!existsSync(dir)) return false;
  return readdirSync(dir, { withFileTypes: true }).some(
    (e) => e.name === name || (e.isDirectory() && e.name !== "node_modules" && foundUnder(join(dir, e.name), name)),
  );
}

/** A test file named after when or why it was written rather than what it specifies. */
const HISTORICAL = /(^|[-/])(issue|review|finding|round-?\d|session)s?[-.\d]/;

/** Every `*.test.ts` under `dir`, as paths from the root. */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith(".test.ts") ? [join(dir, e.name).slice(root.length)] : [],
  );
}

describe("docs/development.md's map", () => {
  const entries = mapEntries(readFileSync(join(root, "docs/development.md"), "utf8"));

  it("reads the map: its folders, its files, the names in their descriptions", () => {
    const paths = entries.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["src/", "src/db/", "src/index.ts", "test/support/", "scripts/"]));
    expect(entries.find((e) => e.path === "src/db/")?.names).toEqual(expect.arrayContaining(["holder-walks.ts", "history-transitions.ts"]));
  });

  it("names only files that exist", () => {
    const missing: string[] = [];
    for (const { path, names } of entries) {
      if (!existsSync(join(root, path))) missing.push(path);
      const folder = path.endsWith("/") ? path : path.slice(0, path.lastIndexOf("/") + 1);
      for (const name of names) {
        const found = name.includes("/")
          ? existsSync(join(root, name))
          : foundUnder(join(root, folder), name) || existsSync(join(root, name));
        if (!found) missing.push(`${name} (in ${path})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('names every folder of test/, and no test file is named after an issue, a review or a finding ("Where a test goes")', () => {
    const mapped = new Set(entries.map((e) => e.path));
    const folders = readdirSync(join(root, "test"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `test/${e.name}/`);
    expect(folders.filter((f) => !mapped.has(f) && !mapped.has(`${f}traces/`))).toEqual([]);
    expect(testFiles(join(root, "test")).filter((f) => HISTORICAL.test(f))).toEqual([]);
    expect(["test/hardening/review-findings.test.ts", "test/api/issue-37.test.ts"].every((f) => HISTORICAL.test(f))).toBe(true);
    expect(["test/reads/stats-opt-out.test.ts", "test/bridge/round.test.ts"].some((f) => HISTORICAL.test(f))).toBe(false);
  });

  it("would catch a file that is gone", () => {
    const [entry] = mapEntries("```\nsrc/\n  db/           the write batch (no-such-writer.ts)\n```\n").filter((e) => e.path === "src/db/");
    expect(entry?.names).toEqual(["no-such-writer.ts"]);
    expect(foundUnder(join(root, "src/db/"), "no-such-writer.ts")).toBe(false);
  });
});
