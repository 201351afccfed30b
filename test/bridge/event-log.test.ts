/** The two log formats: text keeps the bridge's lines; JSON writes one object a line. */
import { describe, expect, it } from "vitest";
import { asksForJson, jsonLog, textLog } from "../../bridge/telling/event-log";

describe("the bridge's log formats", () => {
  it("prints each event's line as text, leaving out the events only JSON shows", () => {
    const lines: string[] = [];
    const log = textLog((l) => lines.push(l));
    log({ level: "warn", event: "retry", msg: "POST /x: 503; retrying in 0.5 s (attempt 2 of 12)", fields: { attempt: 2 } });
    log({ level: "info", event: "request", msg: "request answered", fields: { results: 3 }, jsonOnly: true });
    expect(lines).toEqual(["POST /x: 503; retrying in 0.5 s (attempt 2 of 12)"]);
  });

  it("prints one JSON object a line: time, level, event, msg, then the fields, which cannot replace those four", () => {
    const lines: string[] = [];
    const log = jsonLog(
      (l) => lines.push(l),
      () => new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)),
    );
    log({
      level: "info",
      event: "request",
      msg: "request answered",
      fields: { results: 3, lag_max_s: null, level: "error" },
      jsonOnly: true,
    });
    expect(lines).toEqual([
      '{"time":"2026-01-02T03:04:05.678Z","level":"info","event":"request","msg":"request answered","results":3,"lag_max_s":null}',
    ]);
  });

  it("knows from the raw command line whether JSON is asked for", () => {
    expect(asksForJson(["--log-format", "json"])).toBe(true);
    expect(asksForJson(["--log-format=json", "--bad"])).toBe(true);
    expect(asksForJson(["--log-format", "text"])).toBe(false);
    expect(asksForJson(["--project", "json"])).toBe(false);
  });
});
