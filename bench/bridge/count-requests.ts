/**
 * Counts a bridge run's requests to the service by kind, with the time each kind kept the bridge
 * waiting and every pass request's round trip. bench:bridge wraps fetch with it in process, and
 * preloads this file into a CLI run (`node --import tsx --import ./count-requests.ts
 * bridge/cli.ts …`, BRIDGE_BENCH_COUNTS=file), which then also notes when the first pass
 * request left (the start-up) and writes the counts as JSON to the file when the process exits.
 */
import { writeFileSync } from "node:fs";

export interface RequestCounts {
  /** Per kind (`POST pass-batches`, `POST holders`, …): requests and the milliseconds spent waiting on them. */
  kinds: Record<string, { n: number; ms: number }>;
  /** Every pass request's round trip (ms), in order. */
  passMs: number[];
  /** Milliseconds from the process's start to its first request, its first pass request, and its exit (a CLI run). */
  firstRequestMs: number | null;
  firstPassMs: number | null;
  exitMs: number;
}

/** `PUT /v1/projects/x/apps/y` → `PUT apps`. */
export function requestKind(method: string, url: string): string {
  const path = new URL(url).pathname.replace(/^\/v1\/projects\/[^/]+\/?/, "");
  return `${method} ${path.split("/")[0] || "project"}`;
}

/** A fetch that counts into `counts` and passes everything to `inner`. */
export function countingFetch(inner: typeof fetch, counts: RequestCounts): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const kind = requestKind(request.method, request.url);
    const started = performance.now();
    counts.firstRequestMs ??= started;
    if (kind === "POST pass-batches") counts.firstPassMs ??= started;
    try {
      const response = await inner(request);
      const answer = await response.arrayBuffer();
      return new Response(answer, response);
    } finally {
      const ms = performance.now() - started;
      const k = (counts.kinds[kind] ??= { n: 0, ms: 0 });
      k.n++;
      k.ms += ms;
      if (kind === "POST pass-batches") counts.passMs.push(ms);
    }
  };
}

export const emptyCounts = (): RequestCounts => ({ kinds: {}, passMs: [], firstRequestMs: null, firstPassMs: null, exitMs: 0 });

const out = process.env.BRIDGE_BENCH_COUNTS;
if (out) {
  const counts = emptyCounts();
  globalThis.fetch = countingFetch(globalThis.fetch, counts);
  process.on("exit", () => {
    counts.exitMs = performance.now();
    writeFileSync(out, JSON.stringify(counts));
  });
}
