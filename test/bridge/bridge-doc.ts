/**
 * docs/bridge.md's checklists as an admin copies them: a section's fenced blocks, the list's
 * indent dropped, and their placeholders filled in. The tests that run the checklists read the
 * doc itself, so the doc and what the tests run cannot drift apart.
 */
import { readFileSync } from "node:fs";

const doc = () => readFileSync(new URL("../../docs/bridge.md", import.meta.url), "utf8");

/** The text of the section headed `heading` (any level), up to the next heading of its level or higher. */
export function docSection(heading: string): string {
  const text = doc();
  const m = new RegExp(`^(#+) ${heading.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m").exec(text);
  if (!m) throw new Error(`docs/bridge.md has no section "${heading}"`);
  const rest = text.slice(m.index + m[0].length);
  const next = new RegExp(`^#{1,${m[1]!.length}} `, "m").exec(rest);
  return rest.slice(0, next ? next.index : undefined);
}

/** The fenced blocks of `section` in order, with their language (`sql`, `sh`, or "" for none), each line's indent dropped. */
export function fencedBlocks(section: string): { lang: string; text: string }[] {
  return [...section.matchAll(/^\s*```(\w*)\n([\s\S]*?)\n\s*```$/gm)].map((m) => ({
    lang: m[1]!,
    text: m[2]!
      .split("\n")
      .map((line) => line.trim())
      .join("\n"),
  }));
}

/** The one block of `lang` in `section` that contains `marker`. */
export function blockWith(section: string, lang: string, marker: string): string {
  const found = fencedBlocks(section).filter((b) => b.lang === lang && b.text.includes(marker));
  if (found.length !== 1) throw new Error(`expected one \`\`\`${lang} block with "${marker}", found ${found.length}`);
  return found[0]!.text;
}

/** `text` with each placeholder replaced; a placeholder the doc no longer has is an error, not a silent no-op. */
export function fillIn(text: string, values: Record<string, string>): string {
  let out = text;
  for (const [placeholder, value] of Object.entries(values)) {
    if (!out.includes(placeholder)) throw new Error(`the checklist's block no longer has ${placeholder}`);
    out = out.replaceAll(placeholder, value);
  }
  return out;
}

/** A shell block's commands: `\`-continued lines joined, comment lines and blank lines dropped. */
export function shellCommands(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}
