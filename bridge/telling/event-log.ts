/**
 * What the bridge tells on stderr, as events. `--log-format text` (the default) prints each
 * event's `msg`, the lines the bridge has always printed; `--log-format json` prints one JSON
 * object a line, `{"time", "level", "event", "msg", ...fields}`, for a log collector
 * (docs/bridge.md, "Monitoring"). No event carries a token or a password: DSNs are redacted.
 */

export type Level = "info" | "warn" | "error";

export interface BridgeEvent {
  level: Level;
  /** What happened, one word (start, request, retry, backoff, reconnect, …). */
  event: string;
  /** The text line, as --log-format text prints it. */
  msg: string;
  fields?: Record<string, string | number | boolean | null>;
  /** Only in JSON: the text log keeps the lines it always had. */
  jsonOnly?: boolean;
}

export type EventLog = (e: BridgeEvent) => void;

/**
 * How a run's parts tell what happens: `tell` an event both logs show, `note` one only the JSON
 * log shows (the text log keeps the lines it always had). Each event name is a literal at the
 * call: test/bridge/event-table.test.ts reads them from the source.
 */
export type Fields = Record<string, string | number | boolean | null>;

export class Teller {
  readonly emit: EventLog;

  /** `events` (--log-format json) takes every event; otherwise the text lines go to `log` (default stderr). */
  constructor(events?: EventLog, log?: (line: string) => void) {
    this.emit = events ?? textLog(log);
  }

  tell(level: Level, event: string, msg: string, fields?: Fields): void {
    this.emit({ level, event, msg, fields });
  }

  note(event: string, msg: string, fields: Fields): void {
    this.emit({ level: "info", event, msg, fields, jsonOnly: true });
  }
}

export type LogFormat = "text" | "json";
export const LOG_FORMATS: readonly LogFormat[] = ["text", "json"];

const stderrLine = (line: string) => void process.stderr.write(line + "\n");

export function textLog(write: (line: string) => void = stderrLine): EventLog {
  return (e) => {
    if (!e.jsonOnly) write(e.msg);
  };
}

const RESERVED = new Set(["time", "level", "event", "msg"]);

export function jsonLog(write: (line: string) => void = stderrLine, now: () => Date = () => new Date()): EventLog {
  return (e) => {
    const line: Record<string, unknown> = { time: now().toISOString(), level: e.level, event: e.event, msg: e.msg };
    for (const [k, v] of Object.entries(e.fields ?? {})) if (!RESERVED.has(k)) line[k] = v;
    write(JSON.stringify(line));
  };
}

export function eventLog(format: LogFormat, write?: (line: string) => void): EventLog {
  return format === "json" ? jsonLog(write) : textLog(write);
}

/** Whether the command line asks for JSON, read before the options are parsed, so that even a bad option is told in JSON. */
export function asksForJson(argv: readonly string[]): boolean {
  return argv.some((a, i) => a === "--log-format=json" || (a === "--log-format" && argv[i + 1] === "json"));
}
