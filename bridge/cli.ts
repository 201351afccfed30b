/** `cobblestone-bridge …` (in a checkout `npm run bridge -- …`): feeds Cobblestone from a BOINC project's database (docs/bridge.md). */
// First: an older Node is told which Node to install (exit 2) before any other module of the bridge runs.
import "./node-version";
import { auditCommand } from "./audit-cli";
import { HelpRequested, parseOptions } from "./cli-options";
import { BridgeError } from "./errors";
import { asksForJson, eventLog } from "./event-log";
import { renderMetrics } from "./metrics";
import { MetricsFile } from "./metrics-file";
import { type MetricsServer, serveMetrics } from "./metrics-server";
import { type BridgeReport, runBridge } from "./run";
import { BridgeStatus } from "./status";
import { summary } from "./summary";

// `cobblestone-bridge audit …`: the one-shot audit (audit-cli.ts), not a run.
if (process.argv[2] === "audit") process.exit(await auditCommand(process.argv.slice(3), process.env));

const argv = process.argv.slice(2);
// Chosen before the options are parsed, so that a bad option is told in the format asked for.
const json = asksForJson(argv);
const emit = eventLog(json ? "json" : "text");

const when = (t: number) => (t > 0 ? `${new Date(t * 1000).toISOString()} (mod_time ${t})` : "the beginning");

const interrupt = new AbortController();
const stop = (what: string) => () => {
  if (interrupt.signal.aborted) {
    // A second Ctrl-C: the state file holds only answered seconds, so leaving now is safe.
    emit({
      level: "warn",
      event: "signal",
      msg: "bridge: stopped; run the same command again to resume",
      fields: { signal: what, again: true },
    });
    process.exit(130);
  }
  emit({
    level: "info",
    event: "signal",
    msg: `bridge: ${what}: finishing the request in flight (${what} again to leave at once)`,
    fields: { signal: what },
  });
  interrupt.abort();
};
process.on("SIGINT", stop("Ctrl-C"));
// systemd and kill stop a --follow run with SIGTERM.
process.on("SIGTERM", stop("SIGTERM"));

/** Seconds to the millisecond. */
const ms = (s: number) => Math.round(s * 1000) / 1000;

/** The summary's numbers, as the JSON log's last event. */
function stopFields(report: BridgeReport) {
  return {
    results: report.results,
    replayed: report.replayed,
    unchanged: report.unchanged,
    passes: report.passes,
    requests: report.requests,
    error_outcomes: report.error_outcomes,
    errors: report.errors,
    rescales: report.rescales,
    skipped: report.skipped,
    holders: report.holders,
    rows: report.rows,
    elapsed_s: report.elapsed_s,
    interrupted: report.interrupted,
    cursor_mod_time: report.cursor.mod_time,
    cursor_id: report.cursor.id,
    written: report.write_back?.written ?? null,
    lag_mean_s: report.lag ? ms(report.lag.mean_s) : null,
    lag_max_s: report.lag ? ms(report.lag.max_s) : null,
  };
}

let server: MetricsServer | null = null;
let file: MetricsFile | null = null;
let exitCode = 0;
try {
  const { logFormat: _format, metrics, metricsFile, ...options } = await parseOptions(argv, process.env);
  const status = new BridgeStatus(options.project);
  const render = () => renderMetrics(status.snapshot());
  if (metrics) server = await serveMetrics(metrics.host, metrics.port, render);
  if (metricsFile) {
    const out = new MetricsFile(metricsFile, render, (msg) => emit({ level: "warn", event: "metrics_file", msg }));
    file = out;
    await out.start();
    status.onPoll(() => out.write());
  }
  // The unpaid count (--write-back) is a scan of the result table: made only when a monitor reads the metrics.
  const countUnpaid = metrics !== null || metricsFile !== null;
  const report = await runBridge({ ...options, events: emit, status, signal: interrupt.signal, countUnpaid });
  const line = summary(report, options.dryRun);
  // The summary stays on stdout in both formats; the JSON log ends with the same numbers.
  emit({ level: "info", event: "stop", msg: line, fields: stopFields(report), jsonOnly: true });
  console.log(line);
  // A --follow run has no end but a stop: stopped cleanly, it is done.
  if (report.interrupted && !options.follow) {
    emit({
      level: "warn",
      event: "interrupted",
      msg: `bridge: interrupted; everything up to ${when(report.cursor.mod_time)} is posted and saved in ${options.stateFile}; run the same command again to resume`,
      fields: { cursor_mod_time: report.cursor.mod_time },
    });
    exitCode = 130;
  }
} catch (e) {
  if (e instanceof HelpRequested) {
    console.log(e.message);
  } else if (e instanceof BridgeError) {
    emit({ level: "error", event: "error", msg: `bridge: ${e.message}`, fields: { transient: e.transient } });
    exitCode = 2;
  } else if (json) {
    // A bug: still one JSON line, with its stack.
    emit({ level: "error", event: "crash", msg: `bridge: ${(e as Error).message}`, fields: { stack: (e as Error).stack ?? String(e) } });
    exitCode = 1;
  } else {
    await file?.close();
    await server?.close();
    throw e;
  }
}
await file?.close();
await server?.close();
// On success the process ends by itself, as it always did.
if (exitCode !== 0) process.exit(exitCode);
