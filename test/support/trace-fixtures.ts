/**
 * Every trace in test/fixtures/traces, found by name so that a trace copied in is replayed by
 * every parity test without another list to keep in step. `fair-*` traces carry only granted
 * and workunit credit (their own tests read them); the rest are BOINC-policy traces with every
 * number of test/fixtures/traces/README.md.
 */
import type { TraceExpected } from "./trace";

const texts = import.meta.glob<string>("../fixtures/traces/*.jsonl", { query: "?raw", import: "default", eager: true });
const expectations = import.meta.glob<unknown>("../fixtures/traces/*.expected.json", { import: "default", eager: true });

export interface TraceFixture<E = TraceExpected> {
  readonly name: string;
  readonly text: string;
  readonly expected: E;
}

function traceName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1).replace(/\.jsonl$/, "");
}

const all: TraceFixture<unknown>[] = Object.entries(texts)
  .map(([path, text]) => {
    const name = traceName(path);
    const expected = expectations[`../fixtures/traces/${name}.expected.json`];
    if (expected === undefined) throw new Error(`trace ${name} has no ${name}.expected.json`);
    return { name, text, expected };
  })
  .sort((a, b) => a.name.localeCompare(b.name));

/** Traces of the BOINC policy: every expected number of the README's format. */
export const BOINC_TRACES = all.filter((t) => !t.name.startsWith("fair-")) as TraceFixture[];

/** As describe.each wants them: [name, text, expected]. */
export const BOINC_TRACE_ROWS: [string, string, TraceExpected][] = BOINC_TRACES.map((t) => [t.name, t.text, t.expected]);

/** What the fair-policy traces expect: granted and workunit credit only. */
export interface FairTraceExpected {
  results: { id: number; granted_credit: number }[];
  workunits: { id: number; credit: number }[];
}

/** The fair-policy traces (their apps carry credit_policy "fair"), as describe.each wants them. */
export const FAIR_TRACE_ROWS: [string, string, FairTraceExpected][] = all
  .filter((t) => t.name.startsWith("fair-"))
  .map((t) => [t.name, t.text, t.expected as FairTraceExpected]);
