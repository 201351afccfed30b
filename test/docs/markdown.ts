/** Just enough Markdown reading for the docs checks: links, headings, `npm run` mentions. */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** The repository's root. */
export const root = new URL("../../", import.meta.url).pathname;

/** Text outside fenced code blocks (links and headings inside ``` are examples, not links). */
export function proseOf(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "");
}

/** Targets of inline links `[text](target)`, as written. */
export function linkTargets(markdown: string): string[] {
  const prose = proseOf(markdown).replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

export function anchors(markdown: string): Set<string> {
  const headings = [...proseOf(markdown).matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1] as string);
  return new Set(headings.map(anchorOf));
}

/** Script names in `npm run <name>` anywhere in the text, code blocks included. */
export function npmRunScripts(markdown: string): string[] {
  return [...markdown.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1] as string);
}

/** Why a relative link written in `from` does not resolve (a file, and an anchor a heading in it), or null. */
export function brokenLink(from: string, target: string): string | null {
  const [path = "", anchor] = target.split("#");
  const file = path === "" ? from : join(dirname(from), decodeURI(path));
  if (!existsSync(file)) return `${target}: no file ${relative(root, file)}`;
  if (anchor === undefined || !file.endsWith(".md")) return null;
  return anchors(readFileSync(file, "utf8")).has(anchor) ? null : `${target}: no heading #${anchor}`;
}
