/**
 * The middle of `npm test` (between `skipped-suites.ts reset` and `… report`): the checks and
 * the three vitest suites, in two lanes side by side, then the time each step took.
 *
 * The workerd suite (vitest.config.ts) is the longest step and the most CPU (two workers, one
 * workerd each); the other lane runs everything else one after another beside it: lint,
 * layering, citations, typecheck, then the Node and browser suites, whose files mostly wait on
 * the servers they start (MariaDB, wrangler dev, chromium). Each step of that lane prints its output as one block
 * when it ends, so the two lanes' lines do not interleave; the workerd suite prints live.
 * Every step runs even when an earlier one fails, and the run fails if any did; a failed step's
 * failing tests are named again under the closing table, since a log's tail is often all a
 * reader (or CI's excerpt) shows.
 */
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";

export interface Step {
  name: string;
  /** An npm script (`npm run -s <script>`) or a command line of node_modules/.bin. */
  command: string[];
}

export interface StepResult {
  name: string;
  seconds: number;
  ok: boolean;
}

/** A step's result with everything it printed. */
type StepRun = StepResult & { output: string };

const npmRun = (script: string): string[] => ["npm", "run", "-s", script];

/** The lanes of `npm test`; the steps of a lane run one after another, the lanes side by side. */
export const LANES: Step[][] = [
  [{ name: "workerd suite (vitest.config.ts)", command: ["vitest", "run"] }],
  [
    { name: "lint (eslint, prettier)", command: npmRun("lint") },
    { name: "lint:layers", command: npmRun("lint:layers") },
    { name: "lint:citations", command: npmRun("lint:citations") },
    { name: "typecheck", command: npmRun("typecheck") },
    { name: "node suite (vitest.node.config.ts)", command: ["vitest", "run", "-c", "vitest.node.config.ts"] },
    { name: "browser suite (vitest.browser.config.ts)", command: ["vitest", "run", "-c", "vitest.browser.config.ts"] },
  ],
];

/** The closing table: one line per step, its seconds and outcome, then the wall time. */
export function timeReport(results: readonly StepResult[], wallSeconds: number): string[] {
  const width = Math.max(...results.map((r) => r.name.length));
  return [
    "Time per step (two lanes side by side):",
    ...results.map((r) => `  ${r.name.padEnd(width)}  ${r.seconds.toFixed(1).padStart(7)} s  ${r.ok ? "passed" : "FAILED"}`),
    `  ${"npm test's steps, wall clock".padEnd(width)}  ${wallSeconds.toFixed(1).padStart(7)} s`,
  ];
}

// eslint-disable-next-line no-control-regex -- the colour codes vitest writes
const ANSI_CODES = /\x1b\[[0-9;]*m/g;
const MAX_FAILURE_LINES = 40;

/** The lines of a vitest run's output that name a failed file or test (its FAIL and × lines). */
export function failureLines(output: string): string[] {
  const named = output
    .replace(ANSI_CODES, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("FAIL ") || line.startsWith("× "));
  const unique = [...new Set(named)];
  return unique.length > MAX_FAILURE_LINES
    ? [...unique.slice(0, MAX_FAILURE_LINES), `… and ${unique.length - MAX_FAILURE_LINES} more`]
    : unique;
}

/** Under the closing table: each failed step, with the failures its output names. */
export function failureReport(results: readonly StepRun[]): string[] {
  return results
    .filter((r) => !r.ok)
    .flatMap((r) => {
      const lines = failureLines(r.output);
      return [`${r.name} failed:`, ...(lines.length ? lines : ["(no failing test named: see its output above)"]).map((l) => `  ${l}`)];
    });
}

function runStep(step: Step, live: boolean): Promise<StepRun> {
  const started = performance.now();
  const [command, ...args] = step.command;
  return new Promise((resolve) => {
    const child = spawn(command!, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (to: NodeJS.WriteStream) => (chunk: Buffer) => {
      output += chunk.toString();
      if (live) to.write(chunk);
    };
    child.stdout.on("data", keep(process.stdout));
    child.stderr.on("data", keep(process.stderr));
    const done = (ok: boolean) => resolve({ name: step.name, seconds: (performance.now() - started) / 1000, ok, output });
    child.on("error", (err) => {
      output += `${err.message}\n`;
      done(false);
    });
    child.on("close", (code) => done(code === 0));
  });
}

async function runLane(steps: readonly Step[], live: boolean): Promise<StepRun[]> {
  const results: StepRun[] = [];
  for (const step of steps) {
    const result = await runStep(step, live);
    if (!live) {
      process.stdout.write(`\n──── ${step.name}: ${result.ok ? "passed" : "FAILED"} (${result.seconds.toFixed(1)} s) ────\n`);
      process.stdout.write(result.output.endsWith("\n") || result.output === "" ? result.output : `${result.output}\n`);
    }
    results.push(result);
  }
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  const lanes = await Promise.all(LANES.map((steps, i) => runLane(steps, i === 0)));
  const results = lanes.flat();
  console.log(`\n${timeReport(results, (performance.now() - started) / 1000).join("\n")}`);
  const failures = failureReport(results);
  if (failures.length) console.log(`\n${failures.join("\n")}`);
  process.exitCode = results.every((r) => r.ok) ? 0 : 1;
}
