/**
 * Each failure's exit status (bridge/shared/exit-codes.ts, docs/bridge.md "Exit status"), without a
 * database: what a BridgeError carries, the database's own errors, and the service's answers as
 * the API client turns them into failures (a 500 is an outage to restart from, a 401 needs a human).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CobblestoneApi } from "../../bridge/service/api-client";
import { BridgeError, exitStatusOf } from "../../bridge/shared/errors";
import { EXIT, isFailure } from "../../bridge/shared/exit-codes";

describe("the bridge's exit statuses", () => {
  it("a BridgeError carries its kind: a refusal 2, unavailable 75, locked 76, a bug 1", () => {
    expect(exitStatusOf(new BridgeError("a validator still grants"))).toBe(2);
    expect(exitStatusOf(new BridgeError("the service did not answer", { transient: true }))).toBe(75);
    // Unavailable but not transient: --follow stops (a 500 would come again), systemd restarts it.
    const failing = new BridgeError("POST 1 passes: internal", { kind: "unavailable" });
    expect([failing.transient, exitStatusOf(failing)]).toEqual([false, 75]);
    expect(exitStatusOf(new BridgeError("another bridge run is working on project 'p'", { kind: "locked" }))).toBe(76);
    expect(exitStatusOf(new BridgeError("the guard was used after its release", { kind: "bug" }))).toBe(1);
  });

  it("the database's own error for a connection gone is 75; any other error a bug", () => {
    expect(exitStatusOf(Object.assign(new Error("Connection lost"), { code: "PROTOCOL_CONNECTION_LOST", fatal: true }))).toBe(75);
    expect(exitStatusOf(Object.assign(new Error("refused"), { code: "ECONNREFUSED" }))).toBe(75);
    expect(exitStatusOf(new TypeError("x is undefined"))).toBe(1);
  });

  it("a failure is any status but 0 and 130", () => {
    expect(Object.values(EXIT).filter(isFailure)).toEqual([1, 2, 3, 75, 76]);
  });

  describe("the service's answers", () => {
    let base = "";
    let answer = { status: 200, body: {} as unknown };
    const server = createServer((_req, res) => {
      res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
    });
    beforeAll(async () => {
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    const failure = async (status: number, code: string) => {
      answer = { status, body: { error: { code, message: "m" } } };
      const api = new CobblestoneApi(base, "p", "t", { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 });
      const e = await api.check().then(
        () => null,
        (x: unknown) => x as BridgeError,
      );
      const later = await api.apps().then(
        () => null,
        (x: unknown) => x as BridgeError,
      );
      return [e?.kind, exitStatusOf(e), later?.kind, exitStatusOf(later)];
    };

    it("a 5xx or a 429 is unavailable (75) at the start and mid-run; a 401, 404 or 422 needs a human (2)", async () => {
      expect(await failure(500, "internal")).toEqual(["unavailable", 75, "unavailable", 75]);
      expect(await failure(502, "bad_gateway")).toEqual(["unavailable", 75, "unavailable", 75]);
      expect(await failure(429, "rate_limited")).toEqual(["unavailable", 75, "unavailable", 75]);
      expect(await failure(401, "unauthorized")).toEqual(["refusal", 2, "refusal", 2]);
      expect(await failure(404, "not_found")).toEqual(["refusal", 2, "refusal", 2]);
      expect(await failure(422, "invalid")).toEqual(["refusal", 2, "refusal", 2]);
    });

    it("a service that cannot be reached at the start is unavailable (75)", async () => {
      const api = new CobblestoneApi("http://127.0.0.1:9", "p", "t");
      const e = (await api.check().catch((x: unknown) => x)) as BridgeError;
      expect(e.message).toMatch(/^cannot reach the service at http:\/\/127\.0\.0\.1:9/);
      expect(exitStatusOf(e)).toBe(75);
    });
  });
});
