/**
 * README.md, SECURITY.md, BENCHMARKS.md and docs/ point at things that exist: every relative link resolves to a file (and
 * its #anchor to a heading there), and every `npm run x` they mention is a script.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { anchorOf, brokenLink, linkTargets, npmRunScripts, root } from "./markdown";

const docs = ["docs", "docs/spec"].flatMap((dir) =>
  readdirSync(join(root, dir))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(root, dir, name)),
);
const files = ["README.md", "SECURITY.md", "BENCHMARKS.md"].map((f) => join(root, f)).concat(docs);
const scripts = Object.keys(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts);

describe("the docs' links and scripts", () => {
  it("reads the README and at least the docs it links", () => {
    expect(docs.length).toBeGreaterThanOrEqual(8);
  });

  it.each(files.map((f) => [relative(root, f), f]))("%s: every relative link resolves", (_, file) => {
    const targets = linkTargets(readFileSync(file, "utf8")).filter((t) => !/^[a-z]+:/i.test(t));
    const broken = targets.map((t) => brokenLink(file, t)).filter((b) => b !== null);
    expect(broken).toEqual([]);
  });

  it.each(files.map((f) => [relative(root, f), f]))("%s: every `npm run` script exists", (_, file) => {
    const missing = npmRunScripts(readFileSync(file, "utf8")).filter((s) => !scripts.includes(s));
    expect(missing).toEqual([]);
  });

  it("README links every file in docs/", () => {
    const linked = new Set(linkTargets(readFileSync(join(root, "README.md"), "utf8")));
    const unlinked = docs.map((f) => relative(root, f)).filter((f) => !linked.has(f));
    expect(unlinked).toEqual([]);
  });
});

describe("the link checker itself", () => {
  const here = join(root, "README.md");
  it("finds a missing file and a missing heading, and accepts real ones", () => {
    expect(brokenLink(here, "docs/no-such-file.md")).toMatch(/no file docs\/no-such-file\.md/);
    expect(brokenLink(here, "docs/api.md#no-such-heading")).toMatch(/no heading/);
    expect(brokenLink(here, "docs/api.md#errors")).toBeNull();
    expect(brokenLink(here, "#quick-start")).toBeNull();
  });

  it("reads links outside code only, and headings as GitHub anchors them", () => {
    expect(linkTargets("[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n")).toEqual(["x.md"]);
    expect(anchorOf("Where Cobblestone's numbers differ, and why")).toBe("where-cobblestones-numbers-differ-and-why");
    expect(npmRunScripts("run `npm run dev`, then npm run test:browser")).toEqual(["dev", "test:browser"]);
  });
});
