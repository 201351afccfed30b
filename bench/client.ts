/** A small load driver: many concurrent clients, each timing its own requests. */
import type { SuccessBody } from "../test/support/api-types";

export interface RunStats {
  readonly requests: number;
  readonly seconds: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Sends every item with `concurrency` clients; latencies in milliseconds. */
export async function drive<T>(items: Iterable<T>, concurrency: number, send: (item: T) => Promise<unknown>): Promise<RunStats> {
  const iterator = items[Symbol.iterator]();
  const latencies: number[] = [];
  const start = performance.now();
  const client = async () => {
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      const t = performance.now();
      await send(next.value);
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? 0,
  };
}

/** A JSON call that must succeed; the answer is typed by the OpenAPI document, by its method and path. */
export async function postJson<P extends string, M extends string = "POST">(
  base: string,
  path: P,
  token: string,
  body: unknown,
  method: M = "POST" as M,
): Promise<SuccessBody<M, P>> {
  const url = `${base}${path}`;
  const res = await fetch(url, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as SuccessBody<M, P>;
}

export async function getOk(url: string): Promise<void> {
  const res = await fetch(url);
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
}
