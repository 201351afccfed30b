/**
 * The run's status in Prometheus' text exposition format (version 0.0.4), the format of both
 * `--metrics-port` (GET /metrics) and `--metrics-file` (node_exporter's textfile collector):
 * every metric prefixed `cobblestone_bridge_`, with HELP and TYPE lines, labelled with the project.
 */
import type { CarriedStatus, StatusSnapshot } from "./status";
import { BRIDGE_VERSION } from "../shared/version";

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** A label value as the format escapes it (backslash, double quote, new line). */
export function labelValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** A sample value: integers as they are, others in full precision. */
function sampleValue(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "+Inf" : "-Inf";
  return String(n);
}

export function renderMetrics(s: StatusSnapshot): string {
  const out: string[] = [];
  const project = `project="${labelValue(s.project)}"`;
  const metric = (name: string, type: "gauge" | "counter", help: string, samples: [string, number][]) => {
    const full = `cobblestone_bridge_${name}`;
    out.push(`# HELP ${full} ${help}`, `# TYPE ${full} ${type}`);
    for (const [labels, value] of samples) out.push(`${full}{${project}${labels}} ${sampleValue(value)}`);
  };
  metric("build_info", "gauge", "The bridge's version (label version); always 1.", [[`,version="${labelValue(BRIDGE_VERSION)}"`, 1]]);
  metric("start_time_seconds", "gauge", "When this bridge process started (Unix seconds).", [["", s.startTime]]);
  metric(
    "last_poll_timestamp_seconds",
    "gauge",
    "When a round last went through (Unix seconds), in this process or one before it (--metrics-file); else the start time.",
    [["", s.lastPoll]],
  );
  if (s.cursor !== null) {
    metric(
      "cursor_timestamp_seconds",
      "gauge",
      "The cursor's mod_time (the database's clock, Unix seconds): every result stamped up to it is answered.",
      [["", s.cursor]],
    );
  }
  metric("guard_held", "gauge", "1 while the run holds its run guard (the database lock of the project), else 0.", [
    ["", s.guardHeld ? 1 : 0],
  ]);
  if (s.following) {
    metric("lag_seconds", "gauge", "Seconds from mod_time to the answered and written request, of the last request's oldest result.", [
      ["", s.lagLast ?? 0],
    ]);
    metric("lag_max_seconds", "gauge", "The largest lag_seconds of the requests written in the last 60 s; 0 when none was.", [
      ["", s.lagMaxMinute],
    ]);
  }
  metric(
    "backlog_results",
    "gauge",
    "Validated results the bridge has read and put in passes, not yet answered by the service and written back.",
    [["", s.backlog]],
  );
  metric("results_posted_total", "counter", "Validated results the service answered in passes.", [["", s.posted]]);
  metric("results_written_total", "counter", "Results written back into the BOINC database (0 without --write-back).", [["", s.written]]);
  metric("retries_total", "counter", "Retries: service requests (429, 503, network) and write-back transactions (deadlock, lock wait).", [
    [',kind="service"', s.retries.service],
    [',kind="write_back"', s.retries.write_back],
  ]);
  metric("errors_total", "counter", "Failures: unavailable (service or database away; --follow backs off) and fatal (the run stopped).", [
    [',kind="unavailable"', s.errors.unavailable],
    [',kind="fatal"', s.errors.fatal],
  ]);
  if (s.lastExit) {
    metric(
      "last_exit_code",
      "gauge",
      "The exit status of the last bridge process that ended (read back from --metrics-file): 0 ok, 1 bug, 2 needs a human, 75 unavailable, 76 locked, 130 interrupted.",
      [["", s.lastExit.code]],
    );
    metric("last_exit_timestamp_seconds", "gauge", "When that process ended (Unix seconds).", [["", s.lastExit.at]]);
  }
  metric("failed", "gauge", "1 from a process's failed exit (any status but 0 and 130) until a round goes through again, else 0.", [
    ["", s.failed ? 1 : 0],
  ]);
  if (s.unpaid) {
    metric("unpaid_results", "gauge", "Valid results reported after the switch point, validated over 5 minutes ago, that nobody paid.", [
      ["", s.unpaid.count],
    ]);
    metric("unpaid_counted_timestamp_seconds", "gauge", "When unpaid_results was last counted (Unix seconds).", [["", s.unpaid.at]]);
  }
  return out.join("\n") + "\n";
}

/** Samples of a text this module rendered, by metric name (without the prefix) and labels after the project's. */
function samplesOf(text: string, project: string): Map<string, number> {
  const out = new Map<string, number>();
  const own = `project="${labelValue(project)}"`;
  for (const line of text.split("\n")) {
    const m = /^cobblestone_bridge_(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || !(m[2] === own || m[2]!.startsWith(`${own},`))) continue;
    const value = Number(m[3]);
    if (Number.isFinite(value)) out.set(`${m[1]}${m[2]!.slice(own.length)}`, value);
  }
  return out;
}

/**
 * What the previous process of this project left in its metrics (the file of --metrics-file):
 * its last poll, its end, whether it had failed. Null when the text holds none of the project's.
 */
export function carriedStatus(text: string, project: string): CarriedStatus | null {
  const m = samplesOf(text, project);
  if (m.size === 0) return null;
  const code = m.get("last_exit_code");
  const at = m.get("last_exit_timestamp_seconds");
  return {
    lastPoll: m.get("last_poll_timestamp_seconds") ?? null,
    lastExit: code !== undefined && at !== undefined ? { code, at } : null,
    failed: m.get("failed") === 1,
  };
}
