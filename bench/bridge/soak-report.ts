/**
 * The soak's report: faults injected and when, the bridge's processes (restarts and their
 * causes, RSS at start and end of each), the lag from each validation to its write-back, the
 * daemons' and the proxy's counts, and the end checks.
 */
import { existsSync, readFileSync } from "node:fs";
import { EXIT } from "../../bridge/shared/exit-codes";
import type { Check } from "./soak-checks";
import type { EndState } from "./soak-end-state";
import type { ProxyCounts } from "./soak-fault-proxy";
import type { FaultRun } from "./soak-faults";
import type { DaemonCounts, Records } from "./soak-records";
import type { BridgeProcess } from "./soak-supervisor";

export interface SoakRun {
  command: string;
  startedAt: number;
  daemonsStoppedAt: number;
  caughtUpAt: number | null;
  endedAt: number;
  load: number[];
  faults: FaultRun[];
  processes: BridgeProcess[];
  daemons: DaemonCounts | null;
  proxy: ProxyCounts;
  records: Records;
  end: EndState;
  checks: Check[];
}

/** What the bridges' logs (stderr) said, by kind of line. */
const LOG_LINES: [string, RegExp][] = [
  ["requests to the service retried (503, network)", /retrying in [\d.]+ s \(attempt/],
  ["write-back transactions retried (lock wait timeout, deadlock)", /^write-back: ER_/],
  ["--follow back-offs (service or database unavailable)", /^follow: .*trying again in/],
  ["write-back warnings (a result gone or no longer valid)", /^write-back: result/],
  ["per-minute follow lines", /^follow: \d+ results posted/],
];

function logCounts(processes: BridgeProcess[]): string[] {
  const n = LOG_LINES.map(() => 0);
  // A log removed from under the run (its directory deleted) is skipped, not the report.
  for (const p of processes.filter((x) => existsSync(x.log))) {
    for (const line of readFileSync(p.log, "utf8").split("\n")) {
      const k = LOG_LINES.findIndex(([, re]) => re.test(line));
      if (k >= 0) n[k]!++;
    }
  }
  return LOG_LINES.map(([what], k) => `${n[k]} ${what}`);
}

/** What a bridge's exit status says (bridge/shared/exit-codes.ts), after it in the restart causes. */
const MEANING = new Map<string, string>([
  [`exit ${EXIT.bug}`, "a bug"],
  [`exit ${EXIT.needsHuman}`, "needs a human"],
  [`exit ${EXIT.unavailable}`, "unavailable"],
  [`exit ${EXIT.locked}`, "locked"],
  [`exit ${EXIT.interrupted}`, "interrupted"],
]);
const exitText = (exit: string | null) => (exit && MEANING.has(exit) ? `${exit} (${MEANING.get(exit)})` : (exit ?? "running"));

/** Processes that lived less than this (restarted while the service or the database was down) are counted, not listed. */
const SHORT_LIVED_S = 10;

/** Results validated this close to a fault (before its start, after its end) are left out of the quiet lag. */
const NEAR_FAULT_MS = { before: 10_000, after: 30_000 };

const mmss = (ms: number) => {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
};
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

function lagLine(what: string, lags: number[]): string {
  const s = [...lags].sort((a, b) => a - b);
  if (s.length === 0) return `${what}: no results`;
  return `${what}: p50 ${percentile(s, 0.5).toFixed(1)} s, p99 ${percentile(s, 0.99).toFixed(1)} s, max ${s.at(-1)!.toFixed(1)} s (${s.length} results)`;
}

/** A process's RSS "at start" is its first sample this long after it was spawned (Node is still loading modules before). */
const WARM_MS = 10_000;

function rssLine(p: BridgeProcess): string {
  if (p.rss.length === 0) return "no RSS sample";
  const max = Math.max(...p.rss.map((r) => r.mb));
  const start = p.rss.find((r) => r.at >= p.startedAt + WARM_MS) ?? p.rss[0]!;
  return `RSS ${start.mb.toFixed(0)} MB at start (${((start.at - p.startedAt) / 1000).toFixed(0)} s) → ${p.rss.at(-1)!.mb.toFixed(0)} MB at end (max ${max.toFixed(0)} MB, ${p.rss.length} samples)`;
}

export function reportText(run: SoakRun): string {
  const out: string[] = [];
  const at = (t: number) => mmss(t - run.startedAt);
  out.push(`soak: ${run.command}`);
  out.push(
    `started ${new Date(run.startedAt).toISOString()}, daemons stopped at ${at(run.daemonsStoppedAt)}, ` +
      `${run.caughtUpAt ? `bridge caught up at ${at(run.caughtUpAt)}` : "the bridge did NOT catch up"}, ended at ${at(run.endedAt)}; ` +
      `load average ${run.load.map((l) => l.toFixed(1)).join(" / ")} (1/5/15 min, at the end)`,
  );

  out.push("", "Faults injected (mm:ss from the start):");
  for (const f of run.faults) out.push(`  ${at(f.startedAt)}–${at(f.endedAt)} ${f.kind}: ${f.note}`);

  out.push("", `The bridge: ${run.processes.length} processes, ${Math.max(0, run.processes.length - 1)} restarts`);
  const causes = new Map<string, number>();
  for (const p of run.processes.slice(0, -1)) {
    const cause = `${exitText(p.exit)}: ${(p.cause ?? "").replace(/\d+(\.\d+)?/g, "N").slice(0, 160)}`;
    causes.set(cause, (causes.get(cause) ?? 0) + 1);
  }
  for (const [cause, n] of [...causes].sort((a, b) => b[1] - a[1])) out.push(`  ${n} × ${cause}`);
  const lifetime = (p: BridgeProcess) => ((p.endedAt ?? run.endedAt) - p.startedAt) / 1000;
  const short = run.processes.filter((p) => lifetime(p) < SHORT_LIVED_S && !p.failure);
  for (const p of run.processes) {
    if (short.includes(p)) continue;
    out.push(
      `  #${p.n} ${at(p.startedAt)}–${at(p.endedAt ?? run.endedAt)} (${lifetime(p).toFixed(0)} s) ${exitText(p.exit)}; ${rssLine(p)}${p.failure ? `; FAILURE: ${p.failure}` : ""}`,
    );
  }
  if (short.length > 0)
    out.push(`  and ${short.length} processes that lived under ${SHORT_LIVED_S} s (#${short.map((p) => p.n).join(", #")})`);
  const longest = [...run.processes].sort((a, b) => lifetime(b) - lifetime(a))[0];
  if (longest) out.push(`  longest-lived: #${longest.n}, ${rssLine(longest)}`);
  out.push(`  their logs: ${logCounts(run.processes).join("; ")}`);
  const last = run.processes.at(-1);
  if (last?.summary) out.push(`  its last summary: ${last.summary}`);

  const lags: number[] = [];
  const quiet: number[] = [];
  for (const v of run.records.validated.values()) {
    const w = v.valid ? run.end.written.get(v.id) : undefined;
    if (!w) continue;
    const lag = w.writtenAt - v.at / 1000;
    lags.push(lag);
    if (!run.faults.some((f) => v.at >= f.startedAt - NEAR_FAULT_MS.before && v.at <= f.endedAt + NEAR_FAULT_MS.after)) quiet.push(lag);
  }
  out.push("", "Lag from the validation (the daemons' clock) to the write-back's written_at (whole seconds: each lag is up to 1 s short):");
  out.push(`  ${lagLine("all", lags)}`);
  out.push(
    `  ${lagLine(`away from faults (validated over ${NEAR_FAULT_MS.before / 1000} s before or ${NEAR_FAULT_MS.after / 1000} s after any)`, quiet)}`,
  );

  const d = run.daemons;
  out.push("", "The daemons:");
  if (d) {
    out.push(
      `  ${d.workunits} workunits, ${d.results} results; validated ${d.valid} valid, ${d.invalid} invalid, late ${d.lateValid} valid and ${d.lateInvalid} invalid ` +
        `(${d.lateStaleZero} late passes read canonical_credit 0); transitioner ${d.transitioned}, file deleter ${d.fileDeleted}; ` +
        `purged ${d.purgedResults} results of ${d.purgedWorkunits} workunits; update_stats ${d.statsRuns} runs, ${d.statsRows} rows (${d.statsOverwrites} of them changed since its read); ` +
        `${d.reconnects} reconnects, ${d.lockRetries} statements retried after a lock conflict`,
    );
    for (const e of d.errors.slice(0, 10)) out.push(`  error: ${e}`);
  } else out.push("  no counts (the daemons' process did not stop cleanly)");
  const p = run.proxy;
  out.push(
    `The proxy: ${p.forwarded} requests forwarded, ${p.answered503} answered 503, ${p.answered500} answered 500 after the service's answer, ` +
      `${p.droppedBefore} dropped before the service, ${p.droppedAfter} dropped after its answer`,
  );

  out.push("", "End checks:");
  for (const c of run.checks) {
    out.push(`  ${c.ok ? "PASS" : "FAIL"} ${c.name}`);
    for (const l of c.lines) out.push(`       ${l}`);
  }
  const failed = run.checks.filter((c) => !c.ok).length;
  out.push("", failed === 0 ? "soak: every check passed" : `soak: ${failed} of ${run.checks.length} checks FAILED`);
  return out.join("\n");
}
