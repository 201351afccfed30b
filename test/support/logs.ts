/** The Worker's JSON log lines (src/log.ts), read from the console the way Workers Logs reads them. */
import { vi } from "vitest";

export interface LogLine {
  readonly event: string;
  readonly level: "info" | "warn" | "error";
  readonly [field: string]: unknown;
}

const METHODS = ["log", "info", "warn", "error", "debug"] as const;

/**
 * Runs `work` with the console captured (nothing printed) and returns, in order, every line it
 * wrote, parsed, with the console method that wrote it (`console`); `raw` holds each call's arguments as
 * written, for checks that no secret appears anywhere. A line that is not one JSON object fails.
 */
export async function captureLogs(work: () => Promise<unknown>): Promise<{ lines: (LogLine & { console: string })[]; raw: string[] }> {
  const calls: { method: string; args: unknown[] }[] = [];
  const spies = METHODS.map((method) =>
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      calls.push({ method, args });
    }),
  );
  try {
    await work();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  const raw = calls.map((c) => c.args.map(String).join(" "));
  const lines = calls.map((c) => {
    if (c.args.length !== 1 || typeof c.args[0] !== "string")
      throw new Error(`console.${c.method} was not given one JSON line: ${c.args.join(" ")}`);
    const parsed = JSON.parse(c.args[0]) as LogLine;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`not a JSON object: ${c.args[0]}`);
    return { ...parsed, console: c.method };
  });
  return { lines, raw };
}
