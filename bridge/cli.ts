/** `cobblestone-bridge …` (in a checkout `npm run bridge -- …`): feeds Cobblestone from a BOINC project's database (docs/bridge.md). */
// First: an older Node is told which Node to install (exit 2) before any other module of the bridge runs.
import "./shared/node-version";
import { auditCommand } from "./command-line/audit-cli";
import { HelpRequested, parseOptions } from "./command-line/cli-options";
import { BridgeError, exitStatusOf, isTransient } from "./shared/errors";
import { asksForJson, eventLog } from "./telling/event-log";
import { EXIT } from "./shared/exit-codes";
import { renderMetrics } from "./telling/metrics";
import { MetricsFile, previousStatus } from "./telling/metrics-file";
import { type MetricsServer, serveMetrics } from "./telling/metrics-server";
import { type BridgeReport, runBridge } from "./running/run";
import { cleartextWarning, isCleartextToNetwork } from "./service/service-url";
import { BridgeStatus } from "./telling/status";
import { summary } from "./running/summary";

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
    process.exit(EXIT.interrupted);
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

/** The database's own error for a connection gone (mysql2's, not wrapped in a BridgeError), as a line. */
function unavailableText(e: unknown): string {
  const err = e as { code?: string; message?: string };
  return `the BOINC database is unavailable (${[err.code, err.message].filter(Boolean).join(": ")}); run the same command again when it is back: it resumes from the saved cursor`;
}

let server: MetricsServer | null = null;
let file: MetricsFile | null = null;
let status: BridgeStatus | null = null;
let exitCode: number = EXIT.ok;
/** A bug with --log-format text: thrown again at the end, so that Node prints its stack (exit 1). */
let crash: { error: unknown } | null = null;
try {
  const { logFormat: _format, metrics, metricsFile, ...options } = await parseOptions(argv, process.env);
  // Only --allow-http lets such a --url through (service-url.ts): said at every start, as it is every request.
  if (isCleartextToNetwork(options.url)) {
    emit({ level: "warn", event: "cleartext_http", msg: `bridge: ${cleartextWarning(options.url)}`, fields: { url: options.url } });
  }
  const run = new BridgeStatus(options.project);
  status = run;
  // What the last process left (its last poll, its end) goes on being told until this one does better.
  const previous = metricsFile ? await previousStatus(metricsFile, options.project) : null;
  if (previous) run.carryOver(previous);
  const render = () => renderMetrics(run.snapshot());
  if (metrics) server = await serveMetrics(metrics.host, metrics.port, render);
  if (metricsFile) {
    const out = new MetricsFile(metricsFile, render, (msg) => emit({ level: "warn", event: "metrics_file", msg }));
    file = out;
    await out.start();
    run.onPoll(() => out.write());
  }
  // The unpaid count (--write-back) is a scan of the result table: made only when a monitor reads the metrics.
  const countUnpaid = metrics !== null || metricsFile !== null;
  const report = await runBridge({ ...options, events: emit, status: run, signal: interrupt.signal, countUnpaid });
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
    exitCode = EXIT.interrupted;
  }
} catch (e) {
  if (e instanceof HelpRequested) {
    console.log(e.message);
  } else if (e instanceof BridgeError || isTransient(e)) {
    // Told in one line; the exit status says what to do about it (exit-codes.ts).
    exitCode = exitStatusOf(e);
    const msg = e instanceof BridgeError ? e.message : unavailableText(e);
    const kind = e instanceof BridgeError ? e.kind : "unavailable";
    emit({ level: "error", event: "error", msg: `bridge: ${msg}`, fields: { transient: isTransient(e), kind, exit: exitCode } });
  } else {
    exitCode = EXIT.bug;
    // A bug: in JSON still one line, with its stack; in text Node prints it.
    if (json)
      emit({
        level: "error",
        event: "crash",
        msg: `bridge: ${(e as Error).message}`,
        fields: { stack: (e as Error).stack ?? String(e), exit: exitCode },
      });
    else crash = { error: e };
  }
}
// The file's last write tells how this process ended, for the monitor and the next process.
status?.exited(exitCode);
await file?.close();
await server?.close();
if (crash) throw crash.error;
// On success the process ends by itself, as it always did.
if (exitCode !== EXIT.ok) process.exit(exitCode);
