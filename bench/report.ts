/** The markdown tables of a bench run (bench/results/*.json → *.md), as BENCHMARKS.md shows them. */
import type { RunStats } from "./client";
import type { LimitRow } from "./sqlite-limit";
import type { PolicyRow } from "./policies";
import type { CostSummary } from "./cost";

export interface BenchSummary {
  machine: { cpu: string; cores: number; memoryGiB: number; node: string; date: string; quick: boolean };
  ingest: (RunStats & { size: number; results: number; resultsPerSecond: number })[];
  single1000: RunStats;
  peakMemoryMiB: number;
  limit: LimitRow[];
  limitNode: string;
  ratioTo: { storageWrites: number; wholePassCode: number };
  reads: Record<string, { latency: RunStats; throughput: RunStats }>;
  rescale: { versions: number; ms: number[] }[];
  policies: PolicyRow[];
  cost: CostSummary;
}

const int = (x: number) => Math.round(x).toLocaleString("en-US");
const ms = (x: number) => x.toFixed(x < 10 ? 2 : 1);
const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export function report(s: BenchSummary): string {
  const lines: string[] = [];
  const m = s.machine;
  lines.push(
    `Run ${m.date.slice(0, 16).replace("T", " ")} UTC${m.quick ? " (--quick)" : ""}: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, wrangler dev on Node ${m.node}; storage limit on ${s.limitNode}.`,
    "",
  );
  lines.push(
    "**Ingest** (8 clients, 2 results per workunit) and the **storage limit** (the same passes through the same pass code on better-sqlite3, one process)",
    "",
  );
  lines.push(
    "| workunits per pass | passes | results/s via wrangler dev | p50 ms | p99 ms | SQLite: results/s, whole pass code | SQLite: results/s, writes alone | ingest ÷ writes alone | D1 statements per workunit |",
  );
  lines.push("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const row of s.ingest) {
    const lim = s.limit.find((l) => l.size === row.size)!;
    const writes = lim.results / lim.writeSeconds;
    lines.push(
      `| ${int(row.size)} | ${int(row.requests)} | ${int(row.resultsPerSecond)} | ${ms(row.p50)} | ${ms(row.p99)} | ${int(lim.results / lim.seconds)} | ${int(writes)} | ${pct(row.resultsPerSecond / writes)} | ${lim.statementsPerWorkunit.toFixed(2)} (${lim.statementsPerPass.toFixed(0)} per pass) |`,
    );
  }
  lines.push(
    "",
    `A lone 1,000-workunit pass (one client): p50 ${ms(s.single1000.p50)} ms, max ${ms(s.single1000.max)} ms. Peak memory (VmHWM) of the workerd process during ingest: ${int(s.peakMemoryMiB)} MiB.`,
    "",
  );
  lines.push("**Public reads** from KV snapshots (one client for latency; 16 for throughput)", "");
  lines.push("| read | p50 ms | p99 ms | req/s (16 clients) |", "| --- | ---: | ---: | ---: |");
  for (const [kind, r] of Object.entries(s.reads)) {
    lines.push(`| ${kind} | ${ms(r.latency.p50)} | ${ms(r.latency.p99)} | ${int(r.throughput.requests / r.throughput.seconds)} |`);
  }
  lines.push("", "**Rescale** (POST /rescale, the cron's code; 100,000 hosts in the database; median of 5)", "");
  lines.push("| app versions | median ms | runs ms |", "| ---: | ---: | --- |");
  for (const r of s.rescale) lines.push(`| ${int(r.versions)} | ${ms(median(r.ms))} | ${r.ms.map(ms).join(", ")} |`);
  lines.push("", "**Ingest by credit policy** (passes of 100 workunits, 8 clients, alternating rounds)", "", ...policyTable(s.policies));
  lines.push("", "**Cost** (the same passes on wrangler's local D1; D1's `meta` of every statement; per validated result)", "");
  lines.push(
    "| workunits per pass | validated results | D1 rows read | D1 rows written | bytes stored |",
    "| ---: | ---: | ---: | ---: | ---: |",
  );
  for (const r of s.cost.rows) {
    lines.push(
      `| ${int(r.size)} | ${int(r.validResults)} | ${r.rowsReadPerResult.toFixed(1)} | ${r.rowsWrittenPerResult.toFixed(2)} | ${int(r.bytesPerResult)} |`,
    );
  }
  const at100 = s.cost.rows.find((r) => r.size === 100);
  if (at100) {
    lines.push("", "Rows written per validated result at passes of 100, by statement:", "", "| statement | rows |", "| --- | ---: |");
    for (const [target, n] of Object.entries(at100.writtenByTarget)) lines.push(`| ${target} | ${n.toFixed(2)} |`);
  }
  const a = s.cost.accounts;
  lines.push(
    "",
    `Database after the run: ${int(s.cost.sizeBytes)} bytes; ${int(a.hosts)} hosts, ${int(a.users)} users, ${int(a.teams)} teams; ${int(s.cost.retainedRows.results)} results, ${int(s.cost.retainedRows.workunits)} workunits, ${int(s.cost.retainedRows.creditHistory)} daily history rows.`,
  );
  return `${lines.join("\n")}\n`;
}

/** Ingest by credit policy: each round's results/s and the median, fair relative to boinc. */
export function policyTable(rows: readonly PolicyRow[]): string[] {
  const med = (r: PolicyRow) => median(r.rounds);
  const boinc = rows.find((r) => r.policy === "boinc")!;
  const lines = [
    "| credit_policy | results/s per round | median results/s | p50 ms | p99 ms | vs boinc |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.policy} | ${r.rounds.map(int).join(", ")} | ${int(med(r))} | ${ms(r.p50)} | ${ms(r.p99)} | ${pct(med(r) / med(boinc))} |`,
    );
  }
  return lines;
}
