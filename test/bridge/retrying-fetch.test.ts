/**
 * The bridge's fetch against a real local HTTP server: 429 and 503 are retried after their
 * Retry-After, a 500 (or any other answer) is passed straight back, network failures back off
 * with each retry reported, and a service that never answers ends in a clear error.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CobblestoneApi } from "../../bridge/service/api-client";
import { BridgeError } from "../../bridge/shared/errors";
import { DEFAULT_RETRY, type RetryOptions, retryAfterMs, retryingFetch } from "../../bridge/service/retrying-fetch";

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

/**
 * The limits of each attempt (issue 48): a service that never answers, or answers without end,
 * is retried like one that is down, each retry naming the request, and the last failure says
 * what the next run does. Small limits keep these fast; nothing here is timed.
 */
describe("retryingFetch's time limit and answer cap", () => {
  const NAME = "POST 2 passes at 1700000000…1700000001";
  const quick = (extra: Partial<RetryOptions>, told: string[]): RetryOptions => ({
    maxAttempts: 2,
    baseDelayMs: 1,
    maxDelayMs: 1,
    sleep: async () => undefined,
    onRetry: (why, _ms, next, max) => told.push(`${why} → attempt ${next} of ${max}`),
    ...extra,
  });

  /** A server whose answer to request n (from 1) is `answer(n, res)`; it keeps every response it was given. */
  async function server(answer: (n: number, res: ServerResponse) => void | Promise<void>) {
    const responses: ServerResponse[] = [];
    const s = createServer((req, res) => {
      responses.push(res);
      req.resume();
      req.on("end", () => void answer(responses.length, res));
    });
    const url = await listen(s);
    const close = () => {
      s.closeAllConnections();
      return new Promise<void>((r) => s.close(() => r()));
    };
    return { url, responses, close };
  }

  it("an attempt that gets no answer is cut off at the time limit and retried; the last one names the request and the next run", async () => {
    const hang = await server(() => undefined);
    const told: string[] = [];
    const failure = await retryingFetch(
      quick({ timeoutMs: 500 }, told),
      fetch,
      NAME,
    )(`${hang.url}/v1/projects/p/pass-batches`, {
      method: "POST",
      body: "{}",
    }).catch((e: unknown) => e);
    await hang.close();
    expect(hang.responses).toHaveLength(2);
    expect(told).toEqual([`${NAME}: no answer within 0.5 s → attempt 2 of 2`]);
    expect(failure).toBeInstanceOf(BridgeError);
    expect((failure as BridgeError).transient).toBe(true);
    expect((failure as Error).message).toBe(
      `the service did not answer after 2 attempts (${NAME}: no answer within 0.5 s); is it up? (The time limit: --request-timeout.) ` +
        "Run the bridge again to resume: the next run sends this request again from the saved cursor (nothing of it was written to BOINC's database).",
    );
  });

  it("the time limit covers the answer's body too: headers and a first part, then silence", async () => {
    const stall = await server((_n, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"passes":[');
    });
    const told: string[] = [];
    const failure = await retryingFetch(quick({ timeoutMs: 500 }, told))(`${stall.url}/v1/x`).catch((e: unknown) => e);
    await stall.close();
    expect(told).toEqual(["GET /v1/x: no answer within 0.5 s → attempt 2 of 2"]);
    expect((failure as Error).message).toMatch(/^the service did not answer after 2 attempts \(GET \/v1\/x: no answer within 0\.5 s\)/);
  });

  it("a request that timed out once and is answered the next time gets that answer", async () => {
    const once = await server((n, res) => {
      if (n > 1) res.end('{"ok":true}');
    });
    const told: string[] = [];
    const res = await retryingFetch(quick({ timeoutMs: 500 }, told), fetch, NAME)(`${once.url}/x`, { method: "POST", body: "{}" });
    expect(await res.json()).toEqual({ ok: true });
    await once.close();
    expect(told).toEqual([`${NAME}: no answer within 0.5 s → attempt 2 of 2`]);
  });

  it("an answer without end is cut off at the cap, not read whole, and retried; the last failure says so", async () => {
    // 64 MiB in chunks of 64 KiB, each written once the last is taken: the cap is 64 KiB.
    const chunk = Buffer.alloc(64 * 1024, " ");
    const finished: boolean[] = [];
    const huge = await server(async (_n, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.on("close", () => finished.push(res.writableFinished));
      for (let i = 0; i < 1024 && !res.destroyed; i++) {
        if (!res.write(chunk)) await new Promise((r) => res.once("drain", r).once("close", r));
      }
      if (!res.destroyed) res.end();
    });
    const told: string[] = [];
    const failure = await retryingFetch(
      quick({ maxAnswerBytes: 64 * 1024 }, told),
      fetch,
      NAME,
    )(`${huge.url}/x`, {
      method: "POST",
      body: "{}",
    }).catch((e: unknown) => e);
    // The bridge closes each connection as it drops the answer (a server left to end it would still be writing).
    while (finished.length < 2) await new Promise((r) => setTimeout(r, 5));
    await huge.close();
    expect(told).toEqual([`${NAME}: an answer over the 65536 bytes the bridge reads → attempt 2 of 2`]);
    expect((failure as Error).message).toBe(
      `no usable answer from the service after 2 attempts (${NAME}: an answer over the 65536 bytes the bridge reads); ` +
        "is --url the Cobblestone service? (The cap: --max-answer-mib.) " +
        "Run the bridge again to resume: the next run sends this request again from the saved cursor (nothing of it was written to BOINC's database).",
    );
    // Both answers were closed by the bridge before their end.
    expect(finished).toEqual([false, false]);
  });

  it("an answer whose Content-Length is over the cap is refused before its body is read", async () => {
    const declared = await server((_n, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(3 * 1024 * 1024) });
      res.write("{");
    });
    const told: string[] = [];
    const failure = await retryingFetch(quick({ maxAnswerBytes: 1024 * 1024 }, told))(`${declared.url}/x`).catch((e: unknown) => e);
    await declared.close();
    expect(told).toEqual(["GET /x: an answer of 3 MiB, over the 1 MiB the bridge reads → attempt 2 of 2"]);
    expect(failure).toBeInstanceOf(BridgeError);
  });

  it("an answer of exactly the cap is read whole, with its status and headers", async () => {
    const body = JSON.stringify({ pad: "x".repeat(1000 - 10) });
    expect(body).toHaveLength(1000);
    const exact = await server((_n, res) => {
      res.writeHead(422, { "content-type": "application/json", "x-mark": "kept" });
      // In two writes without a length (chunked), so the cap is counted as the body streams.
      res.write(body.slice(0, 400));
      res.end(body.slice(400));
    });
    const told: string[] = [];
    const res = await retryingFetch(quick({ maxAnswerBytes: 1000 }, told))(`${exact.url}/x`);
    await exact.close();
    expect(res.status).toBe(422);
    expect(res.headers.get("x-mark")).toBe("kept");
    expect(await res.text()).toBe(body);
    expect(told).toEqual([]);
  });

  it("the caller's own abort is not retried", async () => {
    const hang = await server(() => undefined);
    const told: string[] = [];
    const stop = new AbortController();
    const pending = retryingFetch(quick({ maxAttempts: 5 }, told))(`${hang.url}/x`, { signal: stop.signal }).catch((e: unknown) => e);
    while (hang.responses.length === 0) await new Promise((r) => setTimeout(r, 5));
    stop.abort();
    const failure = await pending;
    await hang.close();
    expect((failure as Error).name).toBe("AbortError");
    expect(told).toEqual([]);
    expect(hang.responses).toHaveLength(1);
  });

  it("the first check of the service has the same limit: a wrong --url that never answers is named", async () => {
    const hang = await server(() => undefined);
    const api = new CobblestoneApi(hang.url, "p", "t", { ...DEFAULT_RETRY, timeoutMs: 500 });
    const failure = await api.check().catch((e: unknown) => e);
    await hang.close();
    expect(failure).toBeInstanceOf(BridgeError);
    expect((failure as Error).message).toBe(
      `the service at ${hang.url} did not answer within 0.5 s (checking project 'p'); is --url right and the service up? (The time limit: --request-timeout.)`,
    );
  });
});
