/**
 * Every citation in src/ and test/ resolves inside the repository: a `docs/….md` or
 * `docs/….md#anchor` names a file that exists and, with an anchor, a heading in it (GitHub's
 * slug, as links.test.ts reads the docs). The documents the code was first written against
 * are not in the repository, so citing them ("Part A §7", DESIGN.md, FAIR_MODE,
 * CREDIT_SEMANTICS) or naming an edge case or fair rule bare ("E22", "R1.7") fails: the
 * specification a citation points at is docs/spec/. Markdown files there (the traces' README)
 * have their relative links checked as links.test.ts checks the docs'.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { brokenLink, linkTargets, root } from "./markdown";

const scanned = /\.(ts|tsx|js|mjs|cjs|md)$/;
// The docs checks themselves hold deliberately broken citations as examples.
const skipped = [join(root, "test/docs")];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (skipped.includes(path)) return [];
    if (entry.isDirectory()) return filesUnder(path);
    return scanned.test(entry.name) ? [path] : [];
  });
}

const citation = /(?<![\w./-])docs\/[\w./-]+?\.md(?:#[\w-]+)?/g;
// A label that is a Markdown link's text ("[E9](…#e9)") is a pointer, not a bare label.
const unshipped: [RegExp, string][] = [
  [/Part [AB] ?§/, "a section of the credit semantics"],
  [/DESIGN\.md/, "DESIGN.md"],
  [/FAIR_MODE/, "FAIR_MODE"],
  [/CREDIT_SEMANTICS/, "CREDIT_SEMANTICS"],
  [/(?<!Part [AB] ?)§\s?\d/, "a bare section number"],
  [/(?<![\w#./-])E(?:[1-9]|[1-3]\d)\b(?!\]\()/, "an edge case without docs/spec/edge-cases.md#eN"],
  [/(?<![\w#./-])R[0-3](?:\.\d)?\b(?!\]\()/, "a fair rule without docs/spec/fair-policy.md#rN"],
];

/** The citations in a file's text, with `docs/` resolved against the repository root. */
export function citationsIn(text: string): string[] {
  return [...text.matchAll(citation)].map((m) => m[0]);
}

/** Why a citation does not resolve, or null when it does: `docs/` is read from the root. */
export function brokenCitation(cited: string): string | null {
  return brokenLink(join(root, "README.md"), cited);
}

/** Each line that cites a document outside the repository, with what it cites. */
export function unshippedCitations(text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, i) => unshipped.filter(([pattern]) => pattern.test(line)).map(([, what]) => `line ${i + 1}: ${what}: ${line.trim()}`));
}

const files = ["src", "test"].flatMap((dir) => filesUnder(join(root, dir)));

describe("citations in src/ and test/", () => {
  it("reads the code and finds its citations", () => {
    expect(files.length).toBeGreaterThan(100);
    const all = files.flatMap((f) => citationsIn(readFileSync(f, "utf8")));
    expect(all.filter((c) => c.startsWith("docs/spec/")).length).toBeGreaterThanOrEqual(100);
  });

  it.each(files.map((f) => [relative(root, f), f]))("%s: every docs/ citation resolves", (_, file) => {
    const broken = citationsIn(readFileSync(file, "utf8"))
      .map(brokenCitation)
      .filter((b) => b !== null);
    expect(broken).toEqual([]);
  });

  const markdown = files.filter((f) => f.endsWith(".md"));
  it.each(markdown.map((f) => [relative(root, f), f]))("%s: every relative link resolves", (_, file) => {
    const targets = linkTargets(readFileSync(file, "utf8")).filter((t) => !/^[a-z]+:/i.test(t));
    const broken = targets.map((t) => brokenLink(file, t)).filter((b) => b !== null);
    expect(broken).toEqual([]);
  });

  it.each(files.map((f) => [relative(root, f), f]))("%s: cites nothing outside the repository", (_, file) => {
    expect(unshippedCitations(readFileSync(file, "utf8"))).toEqual([]);
  });
});

describe("the citation checker itself", () => {
  it("finds a missing file and a missing heading, and accepts real ones", () => {
    expect(brokenCitation("docs/spec/no-such-file.md")).toMatch(/no file docs\/spec\/no-such-file\.md/);
    expect(brokenCitation("docs/spec/edge-cases.md#e99")).toMatch(/no heading #e99/);
    expect(brokenCitation("docs/spec/edge-cases.md#e22")).toBeNull();
    expect(brokenCitation("docs/spec/credit.md#grant_credit")).toBeNull();
    expect(brokenCitation("docs/spec/fair-policy.md#r17")).toBeNull();
    expect(brokenCitation("docs/api.md")).toBeNull();
  });

  it("reads a citation up to its anchor, not the sentence around it", () => {
    const text = "// granted (docs/spec/credit.md#grant_credit). See docs/api.md, and docs/spec/edge-cases.md#e5:";
    expect(citationsIn(text)).toEqual(["docs/spec/credit.md#grant_credit", "docs/api.md", "docs/spec/edge-cases.md#e5"]);
    expect(citationsIn("test/docs/links.test.ts and src/docs.ts")).toEqual([]);
  });

  it("flags the old citations and bare labels, and leaves pointers and numbers alone", () => {
    const old = [
      "(Part A §7)",
      "Part B §2.15",
      "(DESIGN.md, Concurrency)",
      "FAIR_MODE R3",
      "CREDIT_SEMANTICS.md",
      "(§2.15)",
      "(edge case E14)",
      "(E4)",
      "(R1.7)",
      "R0: errors",
    ];
    for (const line of old) expect(unshippedCitations(line), line).not.toEqual([]);
    const fine = [
      "(docs/spec/edge-cases.md#e14)",
      "[E9](../docs/spec/edge-cases.md#e9)",
      "docs/spec/fair-policy.md#r17",
      "1e13 FLOP",
      "E2E",
      "R10",
      "rE5",
      "RAC",
    ];
    for (const line of fine) expect(unshippedCitations(line), line).toEqual([]);
  });
});
