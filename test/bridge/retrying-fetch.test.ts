/**
 * The bridge's fetch against a real local HTTP server: 429 and 503 are retried after their
 * Retry-After, a 500 (or any other answer) is passed straight back, network failures back off
 * with each retry reported, and a service that never answers ends in a clear error.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeError } from "../../bridge/errors";
import { retryAfterMs, retryingFetch } from "../../bridge/retrying-fetch";

/** Answers each request with the next scripted status (and Retry-After), then 200; records the bodies it got. */
function scriptedServer(script: { status: number; retryAfter?: string }[]) {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      bodies.push(body);
      const next = script.shift() ?? { status: 200 };
      res.writeHead(next.status, { "content-type": "application/json", ...(next.retryAfter ? { "retry-after": next.retryAfter } : {}) });
      res.end(JSON.stringify({ status: next.status }));
    });
  });
  return { server, bodies };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("retryingFetch", () => {
  const { server, bodies } = scriptedServer([{ status: 429, retryAfter: "3" }, { status: 503, retryAfter: "7" }, { status: 503 }]);
  let base: string;
  beforeAll(async () => (base = await listen(server)));
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("waits Retry-After on 429 and 503, backs off on a 503 without it, reports each retry, and sends the same body each time", async () => {
    const waits: number[] = [];
    const told: string[] = [];
    const f = retryingFetch({
      maxAttempts: 5,
      baseDelayMs: 100,
      maxDelayMs: 1000,
      sleep: async (ms) => void waits.push(ms),
      onRetry: (why, _ms, next, max) => told.push(`${why} → attempt ${next} of ${max}`),
    });
    const res = await f(`${base}/v1/projects/p/passes`, {
      method: "POST",
      body: '{"now":1}',
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(200);
    // 3 s and 7 s as the server asked; the bare 503 (third attempt) backs off within [200, 400) ms.
    expect(waits.slice(0, 2)).toEqual([3000, 7000]);
    expect(waits[2]).toBeGreaterThanOrEqual(200);
    expect(waits[2]).toBeLessThan(400);
    expect(bodies).toEqual(['{"now":1}', '{"now":1}', '{"now":1}', '{"now":1}']);
    expect(told).toEqual([
      "POST /v1/projects/p/passes: 429 → attempt 2 of 5",
      "POST /v1/projects/p/passes: 503 → attempt 3 of 5",
      "POST /v1/projects/p/passes: 503 → attempt 4 of 5",
    ]);
  });

  it("stops at a 500 (a bug the same request hits again) and a 502: one request each, the answer passed back", async () => {
    for (const status of [500, 502]) {
      const { server: broken, bodies: got } = scriptedServer([{ status }, { status: 200 }]);
      const url = await listen(broken);
      const waits: number[] = [];
      const res = await retryingFetch({ maxAttempts: 12, baseDelayMs: 1, maxDelayMs: 1, sleep: async (ms) => void waits.push(ms) })(
        `${url}/x`,
        { method: "POST", body: "{}" },
      );
      expect(res.status).toBe(status);
      expect(got).toHaveLength(1);
      expect(waits).toEqual([]);
      broken.close();
    }
  });

  it("passes other answers (a 422, a 401) straight back", async () => {
    const { server: other } = scriptedServer([{ status: 422 }]);
    const url = await listen(other);
    const res = await retryingFetch({ maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1 })(`${url}/x`);
    expect(res.status).toBe(422);
    other.close();
  });

  it("gives up on a service that is down with an error saying so", async () => {
    const { server: gone } = scriptedServer([]);
    const url = await listen(gone);
    await new Promise<void>((r) => gone.close(() => r()));
    const waits: number[] = [];
    const f = retryingFetch({ maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, sleep: async (ms) => void waits.push(ms) });
    const failure = await f(`${url}/v1/projects/p/passes`, { method: "POST", body: "{}" }).catch((e) => e);
    expect(failure).toBeInstanceOf(BridgeError);
    expect(failure.message).toMatch(/did not answer after 3 attempts .*is it up\? Run the bridge again to resume/);
    expect(waits).toHaveLength(2);
  });
});

describe("retryAfterMs", () => {
  it("reads seconds and HTTP dates", () => {
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:10 GMT", Date.parse("Thu, 01 Jan 2026 00:00:00 GMT"))).toBe(10_000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs("soon")).toBeNull();
  });
});
