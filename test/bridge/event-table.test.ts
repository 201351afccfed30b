/**
 * docs/bridge.md's event table ("Monitoring") names every event the bridge emits, and only those:
 * what a log collector's rules are written against. The names are read from every .ts file under
 * bridge/, where each is a string literal at the call that emits it: `event: "…"` in an EventLog
 * call, the second argument of a Teller's `tell` (telling/event-log.ts) and the first of its
 * `note`. An emission whose name is not a literal there fails this test too, so that a new event
 * cannot slip past it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const BRIDGE = new URL("../../bridge/", import.meta.url);

/** telling/event-log.ts defines the events' format (`event: string`, `event: e.event`) and emits none; the generated types emit none. */
const SOURCES = readdirSync(BRIDGE, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".ts") && f !== "telling/event-log.ts" && !f.startsWith("service/generated/"))
  .map((file) => ({ file, text: readFileSync(new URL(file, BRIDGE), "utf8") }));

/** A call that emits an event, and the same call with its name as a literal (group 1). */
const EMITTERS: { call: RegExp; literal: RegExp }[] = [
  // `event: string` is a parameter's type, not an emission.
  { call: /\bevent:(?!\s*string\b)/g, literal: /event:\s*"([a-z_]+)"/y },
  { call: /\btell\(/g, literal: /tell\(\s*"(?:info|warn|error)",\s*"([a-z_]+)"/y },
  { call: /\bnote\(/g, literal: /note\(\s*"([a-z_]+)"/y },
];

/** Every event name emitted under bridge/, and the calls whose name is not a literal. */
function emittedEvents(): { names: Set<string>; unreadable: string[] } {
  const names = new Set<string>();
  const unreadable: string[] = [];
  for (const { file, text } of SOURCES) {
    for (const { call, literal } of EMITTERS) {
      for (const m of text.matchAll(call)) {
        literal.lastIndex = m.index;
        const name = literal.exec(text)?.[1];
        if (name) names.add(name);
        else
          unreadable.push(
            `bridge/${file}:${text.slice(0, m.index).split("\n").length}: ${text.slice(m.index, m.index + 60).split("\n")[0]}`,
          );
      }
    }
  }
  return { names, unreadable };
}

/** The names in the first column of docs/bridge.md's event table (a row may name several: `dry_run`, `compare`). */
function documentedEvents(): string[] {
  const doc = readFileSync(new URL("../../docs/bridge.md", import.meta.url), "utf8");
  const lines = doc.split("\n");
  const header = lines.indexOf("| event | level | when | fields |");
  if (header < 0) throw new Error("docs/bridge.md has no event table (| event | level | when | fields |)");
  const rows: string[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line);
  }
  return rows.flatMap((row) => [...row.split("|")[1]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!));
}

describe("docs/bridge.md's event table", () => {
  it("names every event bridge/'s files emit, and no other", () => {
    const { names, unreadable } = emittedEvents();
    expect(unreadable, "emit each event with its name as a literal, so that this test can read it").toEqual([]);
    // The source is read as it should be: the events named in the run's own code are found.
    expect([...names]).toEqual(expect.arrayContaining(["start", "request", "guard", "write_back_retry", "error", "stop"]));
    const documented = documentedEvents();
    expect(
      documented.filter((n, i) => documented.indexOf(n) !== i),
      "events in the table twice",
    ).toEqual([]);
    expect([...names].filter((n) => !documented.includes(n)).sort(), "emitted but not in the table").toEqual([]);
    expect(documented.filter((n) => !names.has(n)).sort(), "in the table but never emitted").toEqual([]);
  });
});
