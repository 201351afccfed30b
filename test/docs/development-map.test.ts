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

  it("would catch a file that is gone", () => {
    const [entry] = mapEntries("```\nsrc/\n  db/           the write batch (no-such-writer.ts)\n```\n").filter((e) => e.path === "src/db/");
    expect(entry?.names).toEqual(["no-such-writer.ts"]);
    expect(foundUnder(join(root, "src/db/"), "no-such-writer.ts")).toBe(false);
  });
});
